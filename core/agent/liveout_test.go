package agent

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// bashThenEcho is a model that runs command with bash, then repeats the
// tool's result.
func bashThenEcho(command string) fakemodel.Script {
	return func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b1", Name: "bash", Args: map[string]string{"command": command}}}}
		}
		return fakemodel.Reply{Text: "done"}
	}
}

// TestBashStreamsOutputWhileRunning: a command prints a line, then waits
// on a FIFO the test writes to only once that line has arrived as a
// tool_execution_update; the second line follows as another update, and
// all of them come before the call's end.
func TestBashStreamsOutputWhileRunning(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	mkfifo(t, gate)
	h := newHarness(t, bashThenEcho("echo first; read _ < "+gate+"; printf 'second\\x1b[2J\\n'"), nil)
	done := make(chan error, 1)
	go func() { _, err := h.ag.Prompt(context.Background(), "run it"); done <- err }()

	var live strings.Builder
	released := false
	for e := range h.evs {
		switch e := e.(type) {
		case events.ToolOutput:
			if e.ToolCallID != "b1" || e.ToolName != "bash" {
				t.Errorf("update names the wrong call: %+v", e)
			}
			live.WriteString(e.Text)
			if !released && strings.Contains(live.String(), "first\n") {
				released = true
				f, err := os.OpenFile(gate, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString("go\n")
				f.Close()
			}
		case events.ToolEnded:
			if !released {
				t.Fatalf("the call ended before its first line was passed on: %+v", e)
			}
			if live.String() != "first\nsecond\x1b[2J\n" {
				t.Errorf("live output = %q", live.String())
			}
			if !strings.Contains(e.Result, "first\nsecond") {
				t.Errorf("result = %q", e.Result)
			}
		case events.AgentEnded:
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			return
		}
	}
}

// TestBashLiveOutputIsBounded: a command printing 64 MiB reaches the
// watchers as a few updates of at most updateKeep bytes each, which say
// how much they skipped, and passing it on does not hold it in memory.
func TestBashLiveOutputIsBounded(t *testing.T) {
	const total = 64 << 20
	h := newHarness(t, bashThenEcho("yes 0123456789abcdef | head -c 67108864"), nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := h.ag.Prompt(context.Background(), "flood"); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	var shown, skipped int64
	updates := 0
	for len(h.evs) > 0 {
		switch e := (<-h.evs).(type) {
		case events.ToolOutput:
			updates++
			if len(e.Text) > updateKeep {
				t.Errorf("an update carries %d bytes", len(e.Text))
			}
			shown += int64(len(e.Text))
			skipped += e.Skipped
		case events.ToolEnded:
			if len(e.Result) > outputLimit+200 || !strings.Contains(e.Result, "Output cut at 50 KiB") {
				t.Errorf("the result is %d bytes: %q…", len(e.Result), e.Result[:80])
			}
		}
	}
	if shown+skipped != total || skipped == 0 {
		t.Errorf("updates showed %d and skipped %d bytes of %d", shown, skipped, total)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("passing 64 MiB on allocated %d MiB", alloc>>20)
	}
	t.Logf("%d updates", updates)
}

// TestLiveOutputKeepsCharactersWhole: a character split between writes,
// or by the skipped head of a flood, is never sent in pieces.
func TestLiveOutputKeepsCharactersWhole(t *testing.T) {
	var chunks []string
	var skipped int64
	l := newLiveOutput(func(c string, s int64) { chunks = append(chunks, c); skipped += s })
	l.Write([]byte{'a', 0xc3}) // "a" and the first byte of "é"
	l.Write([]byte{0xa9})
	flood := strings.Repeat("é", updateKeep) // 2 bytes each
	l.Write([]byte(flood[1:]))               // starts inside a character
	l.close()
	l.Write([]byte("late"))
	var sent int64
	for _, c := range chunks {
		if !utf8.ValidString(c) || strings.ContainsRune(c, utf8.RuneError) {
			t.Errorf("a chunk holds a broken character: %q…", c[:min(len(c), 20)])
		}
		sent += int64(len(c))
	}
	if got := strings.Join(chunks, ""); !strings.HasPrefix(got, "aé") || strings.Contains(got, "late") {
		t.Errorf("sent %q…", got[:min(len(got), 20)])
	}
	if sent+skipped != int64(3+len(flood)-1) {
		t.Errorf("sent %d and skipped %d of %d bytes", sent, skipped, 3+len(flood)-1)
	}
}
