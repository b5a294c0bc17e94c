package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// An extension's UI (the pi engine's extension_ui_request and its
// fire-and-forget calls) reaches the chat as events on the host's
// broker; these tests publish them there, as the pi engine does, and
// look at what a user sees and what the extension gets back.

// extRig is a kit rig with a session open and its runtime launched by a
// first turn (so the session exists on disk and has an id).
func extRig(t *testing.T) (*kitRig, string) {
	t.Helper()
	r := newKitRig(t, 110, 34, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "answer to " + req.LastUser}
	}, true)
	r.chat()
	r.say("hi")
	r.waitFor("answer to hi", "tokens ")
	ids := r.sessionIDs()
	if len(ids) != 1 {
		t.Fatalf("sessions: %v", ids)
	}
	return r, ids[0]
}

// asked is an extension's question waiting for its answer.
type asked struct {
	reply chan events.DialogReply
	err   chan error
}

// ask puts d to the session as the pi engine does, until ctx ends.
func (r *kitRig) ask(ctx context.Context, sid string, d events.Dialog) asked {
	a := asked{reply: make(chan events.DialogReply, 1), err: make(chan error, 1)}
	go func() {
		rep, err := r.m.opts.Host.Events.AskDialog(ctx, sid, d)
		a.reply <- rep
		a.err <- err
	}()
	return a
}

// answer waits for the extension's answer.
func (a asked) answer(t *testing.T) (events.DialogReply, error) {
	t.Helper()
	select {
	case rep := <-a.reply:
		return rep, <-a.err
	case <-time.After(time.Minute): // a fail-safe bound, not a timing
		t.Fatal("the extension never got its answer")
	}
	return events.DialogReply{}, nil
}

// unanswered fails if the extension already got an answer.
func (a asked) unanswered(t *testing.T, why string) {
	t.Helper()
	select {
	case rep := <-a.reply:
		t.Fatalf("%s answered the extension's question: %+v", why, rep)
	default:
	}
}

// A select dialog shows its options with their control characters made
// visible, and answers with the chosen option exactly as the extension
// gave it.
func TestExtensionSelectDialogAnswered(t *testing.T) {
	t.Parallel()
	r, sid := extRig(t)
	q := r.ask(t.Context(), sid, events.Dialog{Method: "select", Title: "Deploy where?\x1b]0;pwned\x07",
		Message: "Pick the target.", Options: []string{"staging", "prod\x1b[8m hidden", "local"}})
	r.waitFor(`Deploy where?\x1b]0;pwned\x07`, "Pick the target.", "› staging", `prod\x1b[8m hidden`, "enter choose")
	r.settle()
	r.keys("down", "enter")
	rep, err := q.answer(t)
	if err != nil || rep.Cancelled || rep.Value != "prod\x1b[8m hidden" {
		t.Fatalf("reply %+v, %v; want the second option as given", rep, err)
	}
	// Closed: a key now goes to the chat input.
	r.keys("z")
	r.waitFor("› z")
	final := r.final()
	if strings.Contains(final, "Deploy where?") {
		t.Errorf("the answered dialog stayed open:\n%s", final)
	}
	if found := rawEscapes(r.raw.Bytes()); len(found) > 0 {
		t.Errorf("an extension's escape sequences reached the terminal: %q", found)
	}
}

// Keys typed as the dialog appears never answer it: text goes on into
// the chat input, other keys are ignored and counted, until the keyboard
// has rested; then a deliberate key answers.
func TestTypingNeverAnswersAnExtensionDialog(t *testing.T) {
	t.Parallel()
	r, sid := extRig(t)
	r.tm.Type("and also ")
	r.waitFor("› and also")
	q := r.ask(t.Context(), sid, events.Dialog{Method: "confirm", Title: "Delete the branch?"})
	r.waitFor("Delete the branch?", "keys ignored until you stop typing")
	r.keys("y")
	r.waitFor("and also y")
	r.keys("enter")
	r.waitFor("1 key ignored")
	q.unanswered(t, "typing")
	r.settle()
	r.keys("n")
	rep, err := q.answer(t)
	if err != nil || rep.Cancelled || rep.Confirmed {
		t.Fatalf("n: %+v, %v; want not confirmed, not cancelled", rep, err)
	}
	if final := r.final(); !strings.Contains(final, "› and also y") {
		t.Errorf("the text typed during the quiet period was lost:\n%s", final)
	}
}

// esc cancels; an input takes one line with its placeholder shown, an
// editor starts from its prefill and takes new lines.
func TestExtensionDialogsCancelInputAndEditor(t *testing.T) {
	t.Parallel()
	r, sid := extRig(t)
	q := r.ask(t.Context(), sid, events.Dialog{Method: "select", Title: "Pick one", Options: []string{"a", "b"}})
	r.waitFor("Pick one")
	r.settle()
	r.keys("esc")
	if rep, err := q.answer(t); err != nil || !rep.Cancelled {
		t.Fatalf("esc: %+v, %v; want cancelled", rep, err)
	}

	q = r.ask(t.Context(), sid, events.Dialog{Method: "input", Title: "Release name", Placeholder: "v1.2.3"})
	r.waitFor("Release name", "v1.2.3", "enter send the text")
	r.settle()
	r.keys("v2.0")
	r.waitFor("> v2.0")
	r.keys("enter")
	if rep, err := q.answer(t); err != nil || rep.Value != "v2.0" || rep.Cancelled {
		t.Fatalf("input: %+v, %v", rep, err)
	}

	q = r.ask(t.Context(), sid, events.Dialog{Method: "editor", Title: "Commit message", Prefill: "fix: the bug"})
	r.waitFor("Commit message", "fix: the bug")
	r.settle()
	r.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlJ})
	r.keys("Closes #3")
	r.waitFor("Closes #3")
	r.keys("enter")
	if rep, err := q.answer(t); err != nil || rep.Value != "fix: the bug\nCloses #3" {
		t.Fatalf("editor: %+v, %v", rep, err)
	}
	r.final()
}

// The extension's timeout counts down on the dialog (the UI's clock);
// when it passes the core withdraws the question and the dialog closes,
// saying so.
func TestExtensionDialogTimeout(t *testing.T) {
	t.Parallel()
	r, sid := extRig(t)
	ctx, cancel := context.WithCancel(t.Context())
	q := r.ask(ctx, sid, events.Dialog{Method: "confirm", Title: "Keep going?", Timeout: time.Hour})
	r.waitFor("Keep going?", "3600 s left")
	r.wait(10 * time.Second)
	r.waitFor("3590 s left")
	cancel() // the extension gave up
	if _, err := q.answer(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("withdrawn: %v", err)
	}
	r.waitFor("“Keep going?” closed unanswered")

	q = r.ask(t.Context(), sid, events.Dialog{Method: "input", Title: "Quick?", Timeout: time.Millisecond})
	if _, err := q.answer(t); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timed out: %v", err)
	}
	r.waitFor("“Quick?” closed unanswered: its time ran out")
	r.keys("x")
	r.waitFor("› x") // no dialog is left to take the key
	r.final()
}

// A question answered in another program (another SSH client showing
// the session) closes here and says so.
func TestExtensionDialogAnsweredElsewhere(t *testing.T) {
	t.Parallel()
	r, sid := extRig(t)
	other := r.m.opts.Host.Events.Subscribe(t.Context(), events.Approvals)
	other.Show(sid)
	q := r.ask(t.Context(), sid, events.Dialog{Method: "select", Title: "Which model?", Options: []string{"m1", "m2"}})
	r.waitFor("Which model?")
	var id uint64
	for id == 0 {
		batch, ok := other.Next()
		if !ok {
			t.Fatal("the other program's subscription ended")
		}
		for _, e := range batch {
			if a, ok := e.(events.Asked); ok && a.Dialog != nil {
				id = a.ID
			}
		}
	}
	if !other.Reply(id, events.DialogReply{Value: "m2"}) {
		t.Fatal("the other program could not answer")
	}
	if rep, _ := q.answer(t); rep.Value != "m2" {
		t.Fatalf("reply %+v", rep)
	}
	r.waitFor("“Which model?” was answered in another window")
	final := r.final()
	if strings.Contains(final, "enter choose") {
		t.Errorf("the dialog stayed open:\n%s", final)
	}
}

// Notices keep the latest few whole; setStatus shows in the state line,
// setWidget above the input (at most five lines), setTitle in the
// header; set_editor_text fills only an empty input.
func TestExtensionNoticesStatusWidgetsTitle(t *testing.T) {
	t.Parallel()
	r, sid := extRig(t)
	pub := r.m.opts.Host.Events.Publish
	pub(events.Notice{SessionID: sid, Level: "info", Source: "/home/u/.pi/agent/extensions/deploy.ts", Text: "Deployed to staging."})
	r.waitFor("· deploy.ts: Deployed to staging.")
	pub(events.Notice{SessionID: sid, Level: "error", Source: "/home/u/.pi/agent/extensions/lint/index.ts", Text: "lint crashed: \x1b[2Jboom"})
	r.waitFor(`✗ lint/index.ts: lint crashed: \x1b[2Jboom`)
	pub(events.ExtensionStatus{SessionID: sid, Method: "setStatus", Key: "deploy", Text: "Turn 3 running…"})
	r.waitFor("runtime idle · Turn 3 running…")
	pub(events.ExtensionStatus{SessionID: sid, Method: "setWidget", Key: "w", Lines: []string{"--- W ---", "one", "two", "three", "four", "five", "six"}})
	r.waitFor("--- W ---", "three", "… 3 more widget lines")
	pub(events.ExtensionStatus{SessionID: sid, Method: "setTitle", Text: "Deploy board\x1b]0;x\x07"})
	r.waitFor(`Deploy board\x1b]0;x\x07`)

	r.tm.Type("mine")
	r.waitFor("› mine")
	pub(events.ExtensionStatus{SessionID: sid, Method: "set_editor_text", Text: "from the extension"})
	r.waitFor("your text was kept")
	r.keys("ctrl+u")
	pub(events.ExtensionStatus{SessionID: sid, Method: "set_editor_text", Text: "from the extension"})
	r.waitFor("› from the extension")

	pub(events.ExtensionStatus{SessionID: sid, Method: "setStatus", Key: "deploy", Text: ""})
	pub(events.ExtensionStatus{SessionID: sid, Method: "setWidget", Key: "w"})
	pub(events.Notice{SessionID: sid, Level: "warning", Source: "pi", Text: "last one"})
	r.waitFor("! pi: last one")
	r.tm.Send(tea.WindowSizeMsg{Width: 110, Height: 34})
	final := r.final()
	for _, gone := range []string{"Turn 3 running", "--- W ---", "Deployed to staging"} {
		if strings.Contains(final, gone) {
			t.Errorf("%q is still shown (cleared, or an older notice past the area):\n%s", gone, final)
		}
	}
	for _, kept := range []string{"lint crashed", "your text was kept", "last one", "› from the extension"} {
		if !strings.Contains(final, kept) {
			t.Errorf("%q is not shown:\n%s", kept, final)
		}
	}
	if found := rawEscapes(r.raw.Bytes()); len(found) > 0 {
		t.Errorf("an extension's escape sequences reached the terminal: %q", found)
	}
}

// An extension's notify is read, then goes: it shows above the input
// until the user's next message, as pi's notices scroll away with its
// chat; setStatus and setWidget stay until the extension clears them.
func TestExtensionNoticeGoesAtTheNextTurn(t *testing.T) {
	t.Parallel()
	r, sid := extRig(t)
	pub := r.m.opts.Host.Events.Publish
	pub(events.ExtensionStatus{SessionID: sid, Method: "setStatus", Key: "deploy", Text: "deploy: staging"})
	pub(events.ExtensionStatus{SessionID: sid, Method: "setWidget", Key: "w", Lines: []string{"--- board ---"}})
	pub(events.Notice{SessionID: sid, Level: "info", Source: "/home/u/.pi/agent/extensions/deploy.ts", Text: "Deployed to staging."})
	r.waitScreen("· deploy.ts: Deployed to staging.", "--- board ---", "deploy: staging")
	r.say("next")
	r.waitScreen("answer to next", "--- board ---", "deploy: staging")
	// A notice said during the turn stays to be read after it.
	pub(events.Notice{SessionID: sid, Level: "warning", Source: "pi", Text: "second notice"})
	r.waitScreen("! pi: second notice", "answer to next")
	final := r.final()
	if strings.Contains(final, "Deployed to staging") {
		t.Errorf("the notice stayed above the input after the next turn:\n%s", final)
	}
	for _, kept := range []string{"--- board ---", "deploy: staging", "second notice"} {
		if !strings.Contains(final, kept) {
			t.Errorf("%q is gone:\n%s", kept, final)
		}
	}
}
