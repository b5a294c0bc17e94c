package approval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// TestApprovalDialogFitsEveryHeight: whatever the room, the dialog fits in
// it and its answer keys are on screen; the summary names the command's
// line count when there is room for it, and a reason why the call asks is
// shown.
func TestApprovalDialogFitsEveryHeight(t *testing.T) {
	cmd := "ls -la" + strings.Repeat("\n", 80) + "touch X"
	a := &Ask{req: events.Approval{Tool: "bash", Command: cmd, Reason: "writes under .git/ can run code at the next git command"}}
	for _, w := range []int{40, 60, 80, 120} {
		for h := 6; h <= 40; h++ {
			d := newDialog(uitest.UI(), a, "proj", nil)
			view := d.View(w, h)
			lines := strings.Split(view, "\n")
			if len(lines) > h {
				t.Fatalf("%dx%d: %d lines", w, h, len(lines))
			}
			for _, l := range lines {
				if ansi.StringWidth(l) > w {
					t.Fatalf("%dx%d: a line is %d wide: %q", w, h, ansi.StringWidth(l), l)
				}
			}
			flat := strings.Join(lines, " ")
			for _, want := range []string{"y allow once", "n/esc deny"} {
				if !strings.Contains(flat, want) {
					t.Fatalf("%dx%d: the keys are off screen:\n%s", w, h, view)
				}
			}
			if strings.Contains(flat, "a allow bash") {
				t.Fatalf("%dx%d: a call asking for a reason of its own offers allowing bash for the session", w, h)
			}
			if h >= 10 && !strings.Contains(flat, "command: 81 lines") {
				t.Fatalf("%dx%d: no line count:\n%s", w, h, view)
			}
			if h >= 14 && !strings.Contains(flat, "can run code") {
				t.Fatalf("%dx%d: the reason is cut:\n%s", w, h, view)
			}
			if h >= 9 && !strings.Contains(flat, "Asks because:") {
				t.Fatalf("%dx%d: no reason:\n%s", w, h, view)
			}
		}
	}
}

// TestApprovalDialogHoldsThenAnswers drives the dialog's quiet period with
// a fake clock: keys are ignored and counted until the keyboard rested,
// and a late timer tick of its own arms it.
func TestApprovalDialogHoldsThenAnswers(t *testing.T) {
	ui := uitest.UI()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ui.Now = func() time.Time { return now }
	a := &Ask{req: events.Approval{Tool: "bash", Command: "touch X"}}
	var got []bool
	d := newDialog(ui, a, "proj", func(_ *Dialog, ans events.Answer) tea.Cmd {
		got = append(got, ans.Allow)
		return nil
	})
	if d.Init() == nil {
		t.Fatal("no timer for the quiet period")
	}
	for _, k := range []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("y")}, {Type: tea.KeyEsc}, {Type: tea.KeyEnter}} {
		d.Update(k)
		ui.KeySeen()
	}
	if len(got) != 0 || !strings.Contains(d.View(80, 24), "3 keys ignored") {
		t.Fatalf("answered during the quiet period: %v\n%s", got, d.View(80, 24))
	}
	now = now.Add(common.QuietPeriod - time.Millisecond)
	if _, cmd := d.Update(common.QuietMsg{Owner: d.quiet}); cmd == nil || !d.Holding() {
		t.Fatal("armed early, or stopped its timer while still holding")
	}
	now = now.Add(time.Millisecond)
	d.Update(common.QuietMsg{Owner: d.quiet})
	if d.Holding() || !strings.Contains(d.View(80, 24), "▶ ready") {
		t.Fatalf("not ready after the quiet period:\n%s", d.View(80, 24))
	}
	d.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	if len(got) != 1 || !got[0] {
		t.Fatalf("answers = %v", got)
	}
}

// TestDiffShowsLineNumbersAndContext: an edit in the middle of a file is
// shown against the whole file, with its real line numbers and three
// lines of context either side, not the lines beyond.
func TestDiffShowsLineNumbersAndContext(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(b.String()), 0o644)
	args, _ := json.Marshal(map[string]string{"path": "f.txt", "oldText": "line 10\n", "newText": "ten\n"})
	got := diffFor(root, events.Approval{Tool: "edit", Path: "f.txt", Args: args}).String()
	want := "@@ -7,7 +7,7 @@\n" +
		" 7  7 │   line 7\n 8  8 │   line 8\n 9  9 │   line 9\n" +
		"10    │ - line 10\n   10 │ + ten\n" +
		"11 11 │   line 11\n12 12 │   line 12\n13 13 │   line 13\n"
	if got != want {
		t.Fatalf("edit diff:\n%s\nwant:\n%s", got, want)
	}
	// The dialog draws those rows, numbers and all.
	d := newDialog(uitest.UI(), &Ask{root: root, req: events.Approval{Tool: "edit", Path: "f.txt", Args: args},
		diff: diffFor(root, events.Approval{Tool: "edit", Path: "f.txt", Args: args})}, "proj", nil)
	view := ansi.Strip(d.View(80, 30))
	for _, w := range []string{"1 line added, 1 removed", "10    │ - line 10", "   10 │ + ten", "13 13 │   line 13"} {
		if !strings.Contains(view, w) {
			t.Errorf("dialog lacks %q:\n%s", w, view)
		}
	}
	if strings.Contains(view, "line 14") || strings.Contains(view, "line 6\n") {
		t.Errorf("more than three lines of context:\n%s", view)
	}
}

// At 80 columns a long command wraps at its spaces, every character
// kept, and a long project name in the title wraps instead of being cut.
func TestApprovalDialogWrapsAtWords(t *testing.T) {
	cmd := "find . -name '*.go' -newer go.mod -exec gofmt -l {} + | sort | uniq | xargs -r grep -n TODO | head -n 40"
	project := "a project with a name long enough to need a second line in the approval dialog title"
	d := newDialog(uitest.UI(), &Ask{req: events.Approval{Tool: "bash", Command: cmd}}, project, nil)
	view := ansi.Strip(d.View(80, 24))
	var content []string
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, "│ ") {
			content = append(content, strings.TrimRight(strings.TrimSuffix(strings.TrimPrefix(l, "│ "), "│"), " "))
		}
	}
	var title, rows []string
	for i, l := range content {
		switch {
		case strings.HasPrefix(l, "command:"):
			title = content[:i]
		case strings.HasPrefix(l, "1 │ "):
			rows = append(rows, strings.TrimPrefix(l, "1 │ "))
			for _, c := range content[i+1:] {
				if !strings.HasPrefix(c, "    ") {
					break
				}
				rows = append(rows, strings.TrimSpace(c))
			}
		}
	}
	// A row ends where a space was (the box's padding hides it).
	if len(rows) < 2 || strings.Join(rows, " ") != cmd {
		t.Errorf("the command did not wrap at its spaces, whole:\n%s", view)
	}
	if strings.Join(title, " ") != "Allow bash? · "+project {
		t.Errorf("the title was not wrapped whole:\n%s", view)
	}
}
