package transcript

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"testing"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// TestFailedCallLineSaysWhy: a failed call's line ends with its error's
// first line, shown as text and wrapped, never cut (but for a line of
// output kilobytes long); a denial says "denied" and the user's reason;
// a failed bash call, whose status is in the output under it, and a
// "permission denied" error, which is no denial, say neither. A bash call
// that never ran (denied, refused in plan mode, blocked) has no output
// under it, and its reason (but for a plain denial) is on its line.
func TestFailedCallLineSaysWhy(t *testing.T) {
	st := uitest.UI()
	line := func(it *item, width int) string {
		it.ready = true
		return strings.Join(strings.Fields(strings.Join(it.render(st, width, viewOpts{}), " ")), " ")
	}
	long := "Error: " + strings.Repeat("é", 800) + " end"
	for _, c := range []struct {
		name      string
		it        *item
		want, not string
	}{
		{"a read error", &item{kind: kindTool, tool: "read", path: "missing.txt", status: "error", result: "\nError: missing.txt: no such file or directory\nmore"},
			"✗ read missing.txt · Error: missing.txt: no such file or directory", "more"},
		{"an error with controls", &item{kind: kindTool, tool: "edit", path: "a.go", status: "error", result: "Error: \x1b]0;t\x07 not found"},
			`✗ edit a.go · Error: \x1b]0;t\x07 not found`, "\x1b"},
		{"a permission error", &item{kind: kindTool, tool: "read", path: "k", status: "error", result: "Error: open k: permission denied"},
			"✗ read k · Error: open k: permission denied", "· denied"},
		{"a denial with a reason", &item{kind: kindTool, tool: "write", path: "n.txt", status: "error", result: "The user denied this write call: not on main"},
			"✗ write n.txt · denied: not on main", "The user"},
		{"a plain denial", &item{kind: kindTool, tool: "bash", args: `{"command":"ls"}`, status: "error", result: "The user denied this bash call. Do not retry it; ask the user or choose another way."},
			"✗ bash ls · denied", "Do not retry"},
		{"a failed command", &item{kind: kindTool, tool: "bash", args: `{"command":"false"}`, status: "error", result: "\n[Exit status 1.]", toolMs: 3},
			"✗ bash false · 3ms │ │ [Exit status 1.]", "3ms · "},
		{"a failed command on pi", &item{kind: kindTool, tool: "bash", args: `{"command":"echo oops >&2; exit 3"}`, status: "error", result: "oops\n\nCommand exited with code 3", toolMs: 3},
			"✗ bash echo oops >&2; exit 3 · 3ms │ oops │ │ Command exited with code 3", "3ms · "},
		{"a command plan mode refused", &item{kind: kindTool, tool: "bash", args: `{"command":"echo oops >&2; exit 3"}`, status: "error", result: entries.PlanRefusal("bash")},
			"✗ bash echo oops >&2; exit 3 · Refused: plan mode is on, and only tools that read run while planning (read, grep, find, ls, and tools marked read-only), so this bash call did not run and nothing changed.", "│"},
		{"a command an extension blocked", &item{kind: kindTool, tool: "bash", args: `{"command":"rm -rf build"}`, status: "error", result: "Blocked by the team's policy: no rm.\nAsk first."},
			"✗ bash rm -rf build · Blocked by the team's policy: no rm.", "Ask first"},
		{"a line of output kilobytes long", &item{kind: kindTool, tool: "read", path: "x", status: "error", result: long},
			"… (ctrl+o shows all)", " end"},
	} {
		got := line(c.it, 60)
		if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%s: the call reads %q, want %q and not %q", c.name, got, c.want, c.not)
		}
	}
}

// An extension's tool call is listed by its arguments, as pi lists them,
// in the tool schema's order the engine said; a built-in tool by its
// target.
func TestExtensionToolLineShowsItsArguments(t *testing.T) {
	m := New(uitest.UI(), nil)
	m.SetWidth(100)
	m.SetParams("stamp", []string{"label", "times"})
	m.ToolStart("s1", "stamp", `{"times":2,"label":"v1"}`)
	m.ToolEnd(Result{CallID: "s1", Tool: "stamp", Text: "ok", ToolMs: 4000})
	m.ToolStart("r1", "read", `{"path":"a.go"}`)
	view := ansi.Strip(m.View(viewHeight))
	for _, w := range []string{`✓ stamp label="v1" times=2 · 4.0s`, "read a.go"} {
		if !strings.Contains(view, w) {
			t.Errorf("no %q in\n%s", w, view)
		}
	}
}
