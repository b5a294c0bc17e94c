package agent

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Bounds of a running command's live output (tool_execution_update). A
// command may print without limit; the people and programs watching it
// get at most one update per updateEvery, each with at most updateKeep
// bytes of the newest output, and are told how much was skipped. The
// tool's result for the model is bounded separately (outputLimit).
const (
	updateEvery = 80 * time.Millisecond
	updateKeep  = 16 * 1024
)

// liveOutput passes a running command's output on as it arrives. Writes
// never wait for the clock: output that comes sooner than updateEvery
// after the last update is kept (its newest updateKeep bytes) and sent by
// a timer. close sends what is left; nothing is sent after it, so every
// update precedes the call's tool_execution_end.
type liveOutput struct {
	send func(chunk string, skipped int64)

	mu      sync.Mutex
	pending []byte // newest output not yet sent, at most updateKeep bytes
	skipped int64  // bytes dropped from pending's head since the last update
	last    time.Time
	timer   *time.Timer
	closed  bool
}

func newLiveOutput(send func(chunk string, skipped int64)) *liveOutput {
	return &liveOutput{send: send, pending: make([]byte, 0, updateKeep)}
}

func (l *liveOutput) Write(p []byte) (int, error) {
	n := len(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return n, nil
	}
	if len(p) >= updateKeep {
		// Only the newest bytes can be shown: skip the rest, whole.
		l.skipped += int64(len(l.pending) + len(p) - updateKeep)
		l.pending, p = l.pending[:0], p[len(p)-updateKeep:]
	} else if over := len(l.pending) + len(p) - updateKeep; over > 0 {
		l.skipped += int64(over)
		l.pending = append(l.pending[:0], l.pending[over:]...)
	}
	l.pending = append(l.pending, p...)
	// A skipped head may have split a character: the update starts at the
	// next whole one.
	if l.skipped > 0 {
		i := 0
		for i < len(l.pending) && i < utf8.UTFMax && !utf8.RuneStart(l.pending[i]) {
			i++
		}
		l.skipped += int64(i)
		l.pending = append(l.pending[:0], l.pending[i:]...)
	}
	now := time.Now()
	if wait := updateEvery - now.Sub(l.last); wait <= 0 {
		l.flushLocked(now, false)
	} else if l.timer == nil {
		l.timer = time.AfterFunc(wait, l.tick)
	}
	return n, nil
}

func (l *liveOutput) tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = nil
	if !l.closed {
		l.flushLocked(time.Now(), false)
	}
}

// close sends the rest, with a character cut at the end shown as U+FFFD,
// and ends the updates.
func (l *liveOutput) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.flushLocked(time.Now(), true)
	l.closed = true
}

// flushLocked sends pending up to its last whole character (all of it
// when final). The sender is called with the lock held: a slow reader of a
// headless run's updates (its stdout) slows the command's output down
// instead of piling it up. The UI's broker never blocks; what it queues for
// a program is bounded by the update rate, and a program whose terminal
// stops reading is cut off by serve's write timeout.
func (l *liveOutput) flushLocked(now time.Time, final bool) {
	cut := len(l.pending)
	if !final {
		for i := len(l.pending) - 1; i >= 0 && i >= len(l.pending)-utf8.UTFMax; i-- {
			if utf8.RuneStart(l.pending[i]) {
				if !utf8.FullRune(l.pending[i:]) {
					cut = i
				}
				break
			}
		}
	}
	if cut == 0 && l.skipped == 0 {
		return
	}
	chunk := strings.ToValidUTF8(string(l.pending[:cut]), "\uFFFD")
	skipped := l.skipped
	l.pending = append(l.pending[:0], l.pending[cut:]...)
	l.skipped, l.last = 0, now
	l.send(chunk, skipped)
}
