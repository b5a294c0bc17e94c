package session

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/events"
)

// bridge carries the broker's runtime events, approval questions and
// session arrivals into the Bubble Tea program. The subscription is the program's own and ends
// with its context; the broker queues for it without bound, so the
// runtime never blocks on the UI, and a command takes what has queued in
// one batch.
type bridge struct {
	sub *events.Subscription
}

// newBridge subscribes until ctx ends. It shows no session until show is
// called: the session list needs no agent events.
func newBridge(ctx context.Context, b *events.Broker) *bridge {
	br := &bridge{sub: b.Subscribe(ctx, events.Agent|events.Approvals|events.Sessions)}
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
				out = append(out, approvalMsg{&ask{id: v.ID, sid: v.SessionID, root: v.Root, projectRoot: v.ProjectRoot, req: v.Request, diff: diffFor(v.Root, v.Request)}})
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
func (b *bridge) answer(a *ask, ans events.Answer) bool {
	return b.sub.Answer(a.id, ans)
}

// mine reports whether this program gave the answer r reports.
func (b *bridge) mine(r events.Resolved) bool { return r.By == b.sub.ID() }

// ask is one tool call's question, as the core's broker holds it until
// someone answers it, its turn ends, or nobody shows its session.
type ask struct {
	id          uint64
	sid         string // the session whose turn asks
	root        string // the folder the call works in (a worktree's, in a worktree session)
	projectRoot string // the project's folder, which keys its approval rules
	req         events.Approval
	diff        preview // what a write or edit would change (diffFor), computed off the UI goroutine
}

// approvalMsg asks the user about a tool call.
type approvalMsg struct{ ask *ask }

// approvalGoneMsg says how a question ended: answered here or in another
// program, or withdrawn. Its dialog, if still open, must close.
type approvalGoneMsg struct{ res events.Resolved }

func head(s string, lines int) string {
	parts := strings.SplitN(s, "\n", lines+1)
	if len(parts) > lines {
		return strings.Join(parts[:lines], "\n") + "\n…"
	}
	return s
}
