package chat

import (
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/runtime"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// typedAway reports the keys of help that typing would take: a plain
// character (not a control or alt key) goes into the text.
func typedAway(help [][]key.Binding) []string {
	var out []string
	for _, col := range help {
		for _, b := range col {
			for _, k := range b.Keys() {
				if utf8.RuneCountInString(k) == 1 && k != "/" && k != "@" {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// Every screen of the Session tab shows the keys its table handles, and
// only those; the chat's help lists only keys that work while typing.
func TestSessionKeysAreData(t *testing.T) {
	m := testModel(t)
	k := m.keys
	m.sid = ""
	list := struct{ Open, New, Rename, Delete, Filter, Up, Down, First, Last, Worktree, Diff, Merge, Discard key.Binding }{
		k.Open, k.New, k.Rename, k.Delete, k.Filter, k.Up, k.Down, k.First, k.Last, k.Worktree, k.Diff, k.Merge, k.Discard}
	keytest.Check(t, "session list", list, m.Help())

	m.sid = "s1"
	e := m.input.KeyMap()
	chat := struct {
		Send, Newline, Abort, HistPrev, HistNext, ScrollUp, ScrollDown, Tools, ToolPrev, ToolNext, Thinking, Level, Sessions key.Binding
		Commands                                                                                                             key.Binding
		Menu                                                                                                                 any
		Home, WordLeft, DeleteWord, KillLine, KillStart, Undo, Redo                                                          key.Binding
	}{k.Send, k.Newline, k.Abort, k.HistPrev, k.HistNext, k.ScrollUp, k.ScrollDown, k.Tools, k.ToolPrev, k.ToolNext, k.Thinking, k.Level, k.Sessions,
		menuKeys.Commands, menuKeys, e.Home, e.WordLeft, e.DeleteWord, e.KillLine, e.KillStart, e.Undo, e.Redo}
	keytest.Check(t, "chat", chat, m.Help())
	if typed := typedAway(m.Help()); len(typed) > 0 {
		t.Errorf("the chat's help shows keys that typing takes: %v", typed)
	}

	// The approval dialog shows every answer key it takes.
	d := newApprovalDialog(testUI(), &ask{req: agent.Approval{Tool: "bash", Command: "ls"}}, "p", nil)
	keytest.Check(t, "approval", d.keys, d.Help())

	tp := newTreePage(testUI(), false, nil, "", nil, nil)
	keytest.Check(t, "tree", tp.keys, tp.Help())
	in := newInspector(testUI(), runtime.Inspection{})
	keytest.Check(t, "context", in.keys, in.Help())
}
