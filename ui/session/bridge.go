package session

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/agent"
)

// bridge carries runtime events and approval requests from the agent's
// goroutines into the Bubble Tea program. The runtime must never block on
// the UI, so events queue without bound and a command delivers them in
// batches.
type bridge struct {
	mu      sync.Mutex
	pending []tea.Msg
	signal  chan struct{}
	allow   map[string]bool // session id + tool → allowed for the rest of that session
}

func newBridge() *bridge {
	return &bridge{signal: make(chan struct{}, 1), allow: map[string]bool{}}
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
		<-b.signal
		b.mu.Lock()
		batch := b.pending
		b.pending = nil
		b.mu.Unlock()
		return eventsMsg(batch)
	}
}

// approvalMsg asks the user about a tool call; the answer goes to reply.
type approvalMsg struct {
	req   agent.Approval
	diff  string
	reply chan bool
}

// approver is the session's approver: it asks the UI and waits for the
// answer (or the prompt's end). "Allow for this session" is remembered
// here, per tool.
func (b *bridge) approver(sessionID, root string) agent.Approver {
	return func(ctx context.Context, req agent.Approval) (bool, error) {
		b.mu.Lock()
		ok := b.allow[sessionID+"\x00"+req.Tool]
		b.mu.Unlock()
		if ok {
			return true, nil
		}
		reply := make(chan bool, 1)
		b.push(approvalMsg{req: req, diff: diffFor(root, req), reply: reply})
		select {
		case v := <-reply:
			return v, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

func (b *bridge) allowForSession(sessionID, tool string) {
	b.mu.Lock()
	b.allow[sessionID+"\x00"+tool] = true
	b.mu.Unlock()
}

// diffFor shows what a write or edit would change. It runs on the agent's
// goroutine (it reads the file), never in Update.
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
		path, err := agent.Confine(root, req.Path)
		if err != nil {
			return "(the path is outside the project; the tool will refuse it)"
		}
		old, err := os.ReadFile(path)
		if err != nil {
			return fmt.Sprintf("new file, %d bytes\n", len(content)) + prefixLines("+ ", head(content, 40))
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
		return fmt.Sprintf("(%d lines replaced by %d lines; too large to diff here)\n", len(al), len(bl))
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
	shown := 0
	for i, j := 0, 0; (i < n || j < m) && shown < 200; {
		switch {
		case i < n && j < m && al[i] == bl[j]:
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out.WriteString("+ " + bl[j] + "\n")
			j++
			shown++
		default:
			out.WriteString("- " + al[i] + "\n")
			i++
			shown++
		}
	}
	if out.Len() == 0 {
		return "(no change)\n"
	}
	return out.String()
}
