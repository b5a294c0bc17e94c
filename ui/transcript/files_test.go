package transcript

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// A path too long for its room loses its start, at a folder's boundary,
// and keeps its name; controls in it are shown, never sent.
func TestShortPath(t *testing.T) {
	for _, c := range []struct {
		path string
		w    int
		want string
	}{
		{"a/b.go", 20, "a/b.go"},
		{"one/two/three/name.go", 16, "…/three/name.go"},
		{"averyveryverylongname.go", 10, "…ngname.go"},
	} {
		if got := ShortPath(c.path, c.w); got != c.want || ansi.StringWidth(got) > c.w {
			t.Errorf("ShortPath(%q, %d) = %q, want %q", c.path, c.w, got, c.want)
		}
	}
	if got := ShortPath("x\x1b[8my.go", 40); strings.Contains(got, "\x1b") {
		t.Errorf("a control in a path is sent: %q", got)
	}
}

// The card's hint follows the call ctrl+o acts on; the diffs loaded for
// an expanded call stay when the changes are read again (a change's diff
// never changes, its state does), and the card then says "undone";
// leaving the session forgets the cards.
func TestCardFollowsTheSelectionAndKeepsItsDiff(t *testing.T) {
	m := New(uitest.UI(), nil)
	m.SetWidth(100)
	m.ToolEnd(Result{CallID: "c1", Tool: "write", Path: "a.go", Text: "ok", Files: []events.FileChange{{N: 1, Path: "a.go", Status: "modified", Added: 1, Removed: 1, Kept: true}}})
	m.ToolEnd(Result{CallID: "c2", Tool: "read", Path: "b.go", Text: "ok"})
	v := m.View(30)
	if !strings.Contains(v, "alt+↑ selects · ctrl+o diff") {
		t.Errorf("the card of a call ctrl+o does not act on:\n%s", v)
	}
	m.SelectTool(true, 30) // the latest
	m.SelectTool(true, 30) // the write
	m.ToggleTool(30)
	if v := m.View(30); !strings.Contains(v, "ctrl+o closes the diff · /changes undoes") || !strings.Contains(v, "(loading the diff…)") {
		t.Errorf("the selected, expanded card:\n%s", v)
	}
	wanted := m.DiffsWanted()
	if len(wanted) != 1 || wanted[0].CallID != "c1" || wanted[0].Changes[0].N != 1 || wanted[0].Changes[0].Session != "" {
		t.Fatalf("diffs wanted: %+v", wanted)
	}
	if again := m.DiffsWanted(); len(again) != 0 {
		t.Errorf("a diff asked for twice: %+v", again)
	}
	m.SetDiff("c1", "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-old\n+new\n")
	m.SetChanges([]checkpoints.Change{{N: 1, Session: "s1", ToolCallID: "c1", Path: "a.go", Status: "modified", Added: 1, Removed: 1, Kept: true, State: checkpoints.StateUndone}})
	v = m.View(30)
	for _, want := range []string{"M a.go  +1 −1 · undone", "1       -old", "      1 +new", "│ ok"} {
		if !strings.Contains(v, want) {
			t.Errorf("after the changes were read again the view lacks %q:\n%s", want, v)
		}
	}
	if strings.Index(v, "│ ok") > strings.Index(v, "+new") {
		t.Errorf("the diff is not under the call's output:\n%s", v)
	}
	m.Clear()
	m.ToolEnd(Result{CallID: "c1", Tool: "read", Path: "x", Text: "ok"})
	if v := m.View(30); strings.Contains(v, "a.go") {
		t.Errorf("another session's call shows the old session's card:\n%s", v)
	}
}
