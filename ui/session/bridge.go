package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// bridge carries runtime events and approval requests from the agent's
// goroutines into the Bubble Tea program. The runtime must never block on
// the UI, so events queue without bound and a command delivers them in
// batches.
type bridge struct {
	// done ends with the program: a wait that is pending then returns
	// instead of blocking forever (one goroutine per closed program).
	done    <-chan struct{}
	mu      sync.Mutex
	pending []tea.Msg
	signal  chan struct{}
	allow   map[string]bool // session id + tool → allowed for the rest of that session
}

func newBridge(done <-chan struct{}) *bridge {
	return &bridge{done: done, signal: make(chan struct{}, 1), allow: map[string]bool{}}
}

func (b *bridge) push(msg tea.Msg) {
	b.mu.Lock()
	b.pending = append(b.pending, msg)
	b.mu.Unlock()
	select {
	case b.signal <- struct{}{}:
	default:
	}
}

// eventsMsg is a batch of runtime messages.
type eventsMsg []tea.Msg

// wait returns a command that delivers the next batch.
func (b *bridge) wait() tea.Cmd {
	return func() tea.Msg {
		select {
		case <-b.signal:
		case <-b.done:
			return nil // the program is closing; nothing waits for events
		}
		b.mu.Lock()
		batch := b.pending
		b.pending = nil
		b.mu.Unlock()
		return eventsMsg(batch)
	}
}

// ask is one tool call waiting for the user's answer. The answer is
// delivered at most once and never after the approver stopped waiting
// (the turn was aborted or ended), so a late key cannot answer a question
// nobody asks any more.
type ask struct {
	sid   string // the session whose turn asks
	req   agent.Approval
	diff  string // what a write or edit would change, computed off the UI goroutine
	mu    sync.Mutex
	done  bool
	reply chan bool // buffered: answering never blocks Update
}

// answerWith delivers v and reports whether anyone was still waiting;
// first, when not nil, runs just before, only if the answer goes out.
func (a *ask) answerWith(v bool, first func()) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return false
	}
	if first != nil {
		first()
	}
	a.done = true
	a.reply <- v
	return true
}

// withdraw ends the question unanswered and reports whether it was still
// open.
func (a *ask) withdraw() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return false
	}
	a.done = true
	return true
}

// approvalMsg asks the user about a tool call.
type approvalMsg struct{ ask *ask }

// approvalGoneMsg says an ask was withdrawn before the user answered: its
// dialog must close.
type approvalGoneMsg struct{ ask *ask }

// approver is the session's approver: it asks the UI and waits for the
// answer (or the prompt's end). "Allow for this session" is remembered
// here, per tool; it does not cover a call that asks for a reason of its
// own (a write under .git/), which asks every time.
func (b *bridge) approver(sessionID, root string) agent.Approver {
	return func(ctx context.Context, req agent.Approval) (bool, error) {
		b.mu.Lock()
		ok := b.allow[sessionID+"\x00"+req.Tool]
		b.mu.Unlock()
		if ok && req.Reason == "" {
			return true, nil
		}
		a := &ask{sid: sessionID, req: req, diff: diffFor(root, req), reply: make(chan bool, 1)}
		b.push(approvalMsg{a})
		select {
		case v := <-a.reply:
			return v, nil
		case <-ctx.Done():
			if a.withdraw() {
				b.push(approvalGoneMsg{a})
			}
			return false, ctx.Err()
		}
	}
}

func (b *bridge) allowForSession(sessionID, tool string) {
	b.mu.Lock()
	b.allow[sessionID+"\x00"+tool] = true
	b.mu.Unlock()
}

// previewLimit bounds how much of the current file a write's diff reads.
const previewLimit = 1 << 20

// diffFor shows what a write or edit would change: the whole change, as
// the user approves all of it. It runs on the agent's goroutine (it reads
// the file), never in Update, and reads through agent.ReadPreview: bounded,
// confined to the root, and never blocking on a FIFO a hostile repository
// put where the file should be.
func diffFor(root string, req agent.Approval) string {
	args := map[string]any{}
	jsonUnmarshal(req.Args, &args)
	switch req.Tool {
	case "edit":
		oldText, _ := args["oldText"].(string)
		newText, _ := args["newText"].(string)
		return prefixLines("- ", oldText) + prefixLines("+ ", newText)
	case "write":
		content, _ := args["content"].(string)
		whole := prefixLines("+ ", content)
		path, err := agent.Confine(root, req.Path)
		if err != nil {
			return fmt.Sprintf("(%v: the tool will refuse it)\n", err)
		}
		// One open, through the root, with the type checked on it: no
		// stat first (check-then-open), and never a wait on a FIFO.
		old, err := agent.ReadPreview(root, path, previewLimit+1)
		var notRegular *fsutil.NotRegularError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Sprintf("(new file, %d bytes)\n", len(content)) + whole
		case errors.As(err, &notRegular):
			return "(not a regular file)\n" + whole
		case err != nil:
			return fmt.Sprintf("(the current file cannot be read: %v; the new content follows)\n", err) + whole
		case len(old) > previewLimit:
			return "(the current file is over 1 MiB: not compared; the new content follows whole)\n" + whole
		}
		return lineDiff(string(old), content)
	}
	return ""
}

func prefixLines(prefix, s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return b.String()
}

func head(s string, lines int) string {
	parts := strings.SplitN(s, "\n", lines+1)
	if len(parts) > lines {
		return strings.Join(parts[:lines], "\n") + "\n…"
	}
	return s
}

// lineDiff is a small LCS line diff, capped so a huge file cannot stall.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(al)*len(bl) > 4_000_000 {
		return fmt.Sprintf("(%d lines replaced by %d lines: too large to compare; the new content follows whole)\n", len(al), len(bl)) +
			prefixLines("+ ", b)
	}
	n, m := len(al), len(bl)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	for i, j := 0, 0; i < n || j < m; {
		switch {
		case i < n && j < m && al[i] == bl[j]:
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out.WriteString("+ " + bl[j] + "\n")
			j++
		default:
			out.WriteString("- " + al[i] + "\n")
			i++
		}
	}
	if out.Len() == 0 {
		return "(no change)\n"
	}
	return out.String()
}
