package reviewview

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// fakeService answers as the review service would: the changes it holds,
// and the undo answer the test sets.
type fakeService struct {
	changes []checkpoints.Change
	undone  []checkpoints.Undo
	answer  error
}

func (f *fakeService) Changes(context.Context, string) ([]checkpoints.Change, error) {
	return f.changes, nil
}
func (f *fakeService) Diff(context.Context, checkpoints.Change) (string, error) { return "", nil }
func (f *fakeService) Undo(_ context.Context, _ string, u checkpoints.Undo) (checkpoints.UndoResult, error) {
	f.undone = append(f.undone, u)
	if f.answer != nil {
		return checkpoints.UndoResult{}, f.answer
	}
	return checkpoints.UndoResult{Changes: u.Changes, Files: []string{"a.go"}}, nil
}

// page is a Review screen over svc, loaded, at 100×20; busy is what its
// Busy says.
func page(t *testing.T, svc *fakeService, busy *bool) *Page {
	t.Helper()
	p := New(Deps{Ctx: context.Background(), UI: uitest.UI(), Service: svc, Session: "s1", Busy: func() bool { return *busy },
		Turns: func(_ context.Context, entries []string) map[string]Turn {
			out := map[string]Turn{}
			for _, e := range entries {
				out[e] = Turn{ID: "u" + e, Heading: "you: message " + e}
			}
			return out
		}})
	run(p, p.Init())
	return p
}

// run runs cmd and hands its message to the page, as the shell would,
// until no command is left.
func run(p *Page, cmd tea.Cmd) {
	for cmd != nil {
		msg := cmd()
		if msg == nil {
			return
		}
		_, cmd = p.Update(msg)
	}
}

func press(p *Page, k string) {
	_, cmd := p.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
	run(p, cmd)
}

func twoTurns() []checkpoints.Change {
	return []checkpoints.Change{
		{N: 1, Entry: "e0", Session: "parent", State: checkpoints.StateParent, Status: checkpoints.StatusAdded, Path: "p.go", Added: 3, Tool: "write", Kept: true},
		{N: 1, Entry: "e1", Session: "s1", State: checkpoints.StateActive, Status: checkpoints.StatusModified, Path: "a.go", Added: 2, Removed: 1, Tool: "edit", Kept: true},
		{N: 2, Entry: "e2", Session: "s1", State: checkpoints.StateActive, Status: checkpoints.StatusAdded, Path: "big.bin", Binary: true, Tool: "bash"},
	}
}

// The screen shows the keys its table handles, and only those.
func TestReviewKeysAreData(t *testing.T) {
	p := New(Deps{UI: uitest.UI()})
	keytest.Check(t, "review", p.keys, p.Help())
}

// Changes are listed under their turns' messages, the parent's marked,
// in columns; the latest is selected.
func TestReviewListsTurns(t *testing.T) {
	busy := false
	p := page(t, &fakeService{changes: twoTurns()}, &busy)
	v := p.View(100, 20)
	for _, want := range []string{"── you: message e0  (the session this one was forked from)", "1  parent  A  +3 −0   write  p.go",
		"── you: message e1", "1  active  M  +2 −1   edit   a.go", "›  2  active  A  binary  bash   big.bin  · not undoable", "3 changes"} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}
}

// What cannot be undone says why, and nothing is asked of the service:
// the agent at work, a parent's change, content that was not kept.
func TestReviewRefusesWithASentence(t *testing.T) {
	busy := true
	svc := &fakeService{changes: twoTurns()}
	p := page(t, svc, &busy)
	p.list.SetCursor(2) // a.go
	press(p, "u")
	if !strings.Contains(p.say, "the agent is working") {
		t.Errorf("while busy: %q", p.say)
	}
	busy = false
	p.list.First() // the parent's
	press(p, "u")
	if !strings.Contains(p.say, "was made in the session this one was forked from") {
		t.Errorf("a parent's change: %q", p.say)
	}
	p.list.Last() // not kept
	press(p, "u")
	if !strings.Contains(p.say, "content was not kept") {
		t.Errorf("not kept: %q", p.say)
	}
	if len(svc.undone) > 0 {
		t.Errorf("refused undos reached the service: %v", svc.undone)
	}
}

// A refusal the service says can be forced names the files and offers
// o; o asks first, and yes forces the same undo.
func TestReviewOffersForceAfterARefusal(t *testing.T) {
	busy := false
	svc := &fakeService{changes: twoTurns(), answer: &checkpoints.ConflictError{Conflicts: []checkpoints.Conflict{{Path: "a.go", Reason: "changed since the agent left it", Forceable: true}}}}
	p := page(t, svc, &busy)
	press(p, "o")
	if !strings.Contains(p.say, "nothing to overwrite") {
		t.Errorf("o before a refusal: %q", p.say)
	}
	p.list.SetCursor(2)
	press(p, "u")
	v := p.View(100, 20)
	if !strings.Contains(v, "nothing was changed: a.go (changed since the agent left it) · o overwrites them") || !strings.Contains(v, "o overwrite after a refusal") {
		t.Fatalf("the refusal:\n%s", v)
	}
	press(p, "o")
	ops := p.d.UI.Nav.Drain()
	if len(ops) != 1 || ops[0].Push == nil || !strings.Contains(ops[0].Push.View(100, 20), "Overwrite 1 file?") {
		t.Fatalf("o opened %v", ops)
	}
	svc.answer = nil
	_, cmd := ops[0].Push.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	run(p, cmd)
	if n := len(svc.undone); n != 2 || !svc.undone[1].Force || svc.undone[1].Changes[0] != 1 {
		t.Fatalf("the service was asked %v", svc.undone)
	}
	if !strings.Contains(p.say, "undid 1 change (1): a.go") || p.refused != nil {
		t.Errorf("after the forced undo: %q, refused %v", p.say, p.refused)
	}
}

// A stale load never replaces a newer one, and a StaleMsg for the
// session reads again.
func TestReviewKeepsTheLatestLoad(t *testing.T) {
	busy := false
	svc := &fakeService{changes: twoTurns()}
	p := page(t, svc, &busy)
	old := p.load()
	svc.changes = svc.changes[:2]
	run(p, p.load())
	run(p, old) // an earlier read, arriving late
	if n := p.changeCount(); n != 2 {
		t.Errorf("an older read replaced the newer: %d changes", n)
	}
	svc.changes = twoTurns()
	_, cmd := p.Update(StaleMsg{SessionID: "other"})
	run(p, cmd)
	if n := p.changeCount(); n != 2 {
		t.Errorf("another session's StaleMsg reloaded: %d", n)
	}
	_, cmd = p.Update(StaleMsg{SessionID: "s1"})
	run(p, cmd)
	if n := p.changeCount(); n != 3 {
		t.Errorf("StaleMsg did not reload: %d", n)
	}
}
