package approval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// pi's edit with edits[] shows the diff pi will make; one pi will refuse
// says so in pi's words, counts no lines, and shows each edit as given.
func TestPiEditApprovalShowsWhatPiDoes(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "f.go"), []byte("a\nb\nc\nb2\n"), 0o644)
	view := func(edits ...string) string {
		var list []map[string]string
		for i := 0; i < len(edits); i += 2 {
			list = append(list, map[string]string{"oldText": edits[i], "newText": edits[i+1]})
		}
		args, _ := json.Marshal(map[string]any{"path": "f.go", "edits": list})
		req := events.Approval{Tool: "edit", Path: "f.go", Args: args}
		return ansi.Strip(newDialog(uitest.UI(), &Ask{root: root, req: req, diff: diffFor(root, req)}, "proj", nil).View(80, 30))
	}
	v := view("c", "C", "a", "A")
	for _, w := range []string{"2 lines added, 2 removed", "(2 edits, each matched", "1   │ - a", "  1 │ + A", "3   │ - c", "  3 │ + C"} {
		if !strings.Contains(v, w) {
			t.Errorf("several edits: no %q in\n%s", w, v)
		}
	}
	v = view("b", "B")
	for _, w := range []string{"pi will refuse it as it stands", "pi will refuse this edit: Found 2 occurrences of the text in f.go.", "edits[0] as given:", "- b", "+ B"} {
		if !strings.Contains(v, w) {
			t.Errorf("not unique: no %q in\n%s", w, v)
		}
	}
}

// An extension's tool is asked about by its arguments: the line pi shows,
// in its schema's order, then each value whole.
func TestExtensionToolApprovalShowsItsArguments(t *testing.T) {
	req := events.Approval{Tool: "stamp", Args: json.RawMessage(`{"note":"two\nlines","label":"v1"}`), Params: []string{"label", "note"}}
	v := ansi.Strip(newDialog(uitest.UI(), &Ask{req: req}, "proj", nil).View(80, 30))
	for _, w := range []string{`stamp label="v1" note="two\nlines"`, "label: v1", "note: two", "      lines"} {
		if !strings.Contains(v, w) {
			t.Errorf("no %q in\n%s", w, v)
		}
	}
}

// An MCP server's tool names its server: the same tool name from two
// servers is two different programs.
func TestMCPToolApprovalNamesItsServer(t *testing.T) {
	req := events.Approval{Tool: "mcp__github__create_issue", Args: json.RawMessage(`{"title":"Bug"}`), Params: []string{"title"}}
	d := newDialog(uitest.UI(), &Ask{req: req}, "proj", nil)
	v := ansi.Strip(d.View(80, 30))
	for _, w := range []string{"Allow create_issue (MCP server github)?", `create_issue (MCP server github) title="Bug"`} {
		if !strings.Contains(v, w) {
			t.Errorf("no %q in\n%s", w, v)
		}
	}
	if d.Title() != "Allow create_issue (MCP server github)?" {
		t.Errorf("title %q", d.Title())
	}
}
