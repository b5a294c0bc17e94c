package chat

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/approval"
)

// feed carries the broker's runtime events, approval questions, session
// arrivals and registry writes (a folder added to the open project) into
// the Bubble Tea program. The subscription is the program's own and ends
// with its context; the broker queues for it without bound, so the
// runtime never blocks on the UI, and a command takes what has queued in
// one batch.
type feed struct {
	sub *events.Subscription
}

// newFeed subscribes until ctx ends. It shows no session until show is
// called: the session list needs no agent events.
func newFeed(ctx context.Context, b *events.Broker) *feed {
	br := &feed{sub: b.Subscribe(ctx, events.Agent|events.Approvals|events.Sessions|events.Projects)}
	br.sub.Show("")
	return br
}

// show makes sid the session whose events arrive and whose questions this
// program answers ("" for none). Questions of the session left that no
// other program shows are denied by the broker.
func (b *feed) show(sid string) { b.sub.Show(sid) }

// eventsMsg is a batch of runtime messages.
type eventsMsg []tea.Msg

// wait returns a command that delivers the next batch. It computes the
// diffs of the questions in it, off the update loop (they read files).
func (b *feed) wait() tea.Cmd {
	return func() tea.Msg {
		batch, ok := b.sub.Next()
		if !ok {
			return nil // the program is closing; nothing waits for events
		}
		out := make(eventsMsg, 0, len(batch))
		for _, msg := range batch {
			switch v := msg.(type) {
			case events.Asked:
				if v.Dialog != nil {
					// An extension's question: shown by its own dialog, not as
					// a tool approval.
					out = append(out, v)
					continue
				}
				out = append(out, approvalMsg{approval.NewAsk(v)})
			case events.Resolved:
				out = append(out, approvalGoneMsg{v})
			default:
				out = append(out, v)
			}
		}
		return out
	}
}

// approvalMsg asks the user about a tool call.
type approvalMsg struct{ ask *approval.Ask }

// approvalGoneMsg says how a question ended: answered here or in another
// program, or withdrawn. Its dialog, if still open, must close.
type approvalGoneMsg struct{ res events.Resolved }
