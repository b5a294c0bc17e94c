package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// bridge carries the broker's runtime events and approval questions into
// the Bubble Tea program. The subscription is the program's own and ends
// with its context; the broker queues for it without bound, so the
// runtime never blocks on the UI, and a command takes what has queued in
// one batch.
type bridge struct {
	sub *events.Subscription
}

// newBridge subscribes until ctx ends. It shows no session until show is
// called: the session list needs no agent events.
func newBridge(ctx context.Context, b *events.Broker) *bridge {
	br := &bridge{sub: b.Subscribe(ctx, events.Agent|events.Approvals)}
	br.sub.Show("")
	return br
}

// show makes sid the session whose events arrive and whose questions this
// program answers ("" for none). Questions of the session left that no
// other program shows are denied by the broker.
func (b *bridge) show(sid string) { b.sub.Show(sid) }

// eventsMsg is a batch of runtime messages.
type eventsMsg []tea.Msg

// wait returns a command that delivers the next batch. It computes the
// diffs of the questions in it, off the update loop (they read files).
func (b *bridge) wait() tea.Cmd {
	return func() tea.Msg {
		batch, ok := b.sub.Next()
		if !ok {
			return nil // the program is closing; nothing waits for events
		}
		out := make(eventsMsg, 0, len(batch))
		for _, msg := range batch {
			switch v := msg.(type) {
			case events.Asked:
				out = append(out, approvalMsg{&ask{id: v.ID, sid: v.Session, req: v.Request, diff: diffFor(v.Root, v.Request)}})
			case events.Resolved:
				out = append(out, approvalGoneMsg{v})
			default:
				out = append(out, v)
			}
		}
		return out
	}
}

// answer answers a question as this program and reports whether it was
// still open (another program may have answered it, or its turn ended).
func (b *bridge) answer(a *ask, allow, forSession bool) bool {
	return b.sub.Answer(a.id, events.Answer{Allow: allow, ForSession: forSession})
}

// mine reports whether this program gave the answer r reports.
func (b *bridge) mine(r events.Resolved) bool { return r.By == b.sub.ID() }

// ask is one tool call's question, as the core's broker holds it until
// someone answers it, its turn ends, or nobody shows its session.
type ask struct {
	id   uint64
	sid  string // the session whose turn asks
	req  agent.Approval
	diff string // what a write or edit would change, computed off the UI goroutine
}

// approvalMsg asks the user about a tool call.
type approvalMsg struct{ ask *ask }

// approvalGoneMsg says how a question ended: answered here or in another
// program, or withdrawn. Its dialog, if still open, must close.
type approvalGoneMsg struct{ res events.Resolved }

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
