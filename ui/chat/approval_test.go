package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/projects"
	"github.com/pi-tui/pi-tui/core/runtime"
	"github.com/pi-tui/pi-tui/ui/common"
)

func testUI() *common.UI {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return common.NewUI(common.NewStyles(r))
}

// TestApprovalDialogFitsEveryHeight: whatever the room, the dialog fits in
// it and its answer keys are on screen; the summary names the command's
// line count when there is room for it, and a reason why the call asks is
// shown.
func TestApprovalDialogFitsEveryHeight(t *testing.T) {
	cmd := "ls -la" + strings.Repeat("\n", 80) + "touch X"
	a := &ask{req: agent.Approval{Tool: "bash", Command: cmd, Reason: "writes under .git/ can run code at the next git command"}}
	for _, w := range []int{40, 60, 80, 120} {
		for h := 6; h <= 40; h++ {
			d := newApprovalDialog(testUI(), a, "proj", nil)
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
	ui := testUI()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ui.Now = func() time.Time { return now }
	a := &ask{req: agent.Approval{Tool: "bash", Command: "touch X"}}
	var got []bool
	d := newApprovalDialog(ui, a, "proj", func(_ *approvalDialog, ans events.Answer) tea.Cmd {
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

func writeArgs(path, content string) agent.Approval {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return agent.Approval{Tool: "write", Path: path, Args: args}
}

// TestDiffForReadsSafely: a write's diff is computed from a bounded,
// non-blocking read, and always shows the whole new content when it
// cannot compare.
func TestDiffForReadsSafely(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "old.txt"), []byte("a\nb\nc\n"), 0o644)
	os.WriteFile(filepath.Join(root, "big.txt"), []byte(strings.Repeat("x", previewLimit+10)), 0o644)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("line\n", 500)
	for _, c := range []struct {
		path, content string
		want          []string
	}{
		{"old.txt", "a\nB\nc\n", []string{"@@ -1,3 +1,3 @@\n1 1 │   a\n2   │ - b\n  2 │ + B\n3 3 │   c\n"}},
		{"new.txt", long, []string{"(new file, 2,500 bytes)", "      1 │ + line\n", "    500 │ + line\n"}},
		{"pipe", "x\n", []string{"(not a regular file)", "  1 │ + x\n"}},
		{"big.txt", "y\n", []string{"over 1 MiB", "  1 │ + y\n"}},
		{"../outside.txt", "x\n", []string{"the tool will refuse it"}},
	} {
		got := diffFor(root, writeArgs(c.path, c.content)).String()
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("diff of %s lacks %q:\n%.300s", c.path, w, got)
			}
		}
	}
	// A whole rewrite shows every line it removes and adds.
	huge := strings.Repeat("o\n", 3000)
	os.WriteFile(filepath.Join(root, "wide.txt"), []byte(huge), 0o644)
	got := diffFor(root, writeArgs("wide.txt", strings.Repeat("n\n", 3000))).String()
	if strings.Count(got, "│ + n\n") != 3000 || strings.Count(got, "│ - o\n") != 3000 {
		t.Errorf("a large rewrite hides its content: %.200s", got)
	}
}

// TestTranscriptShowsControlsVisibly: every part of an item drawn from a
// model, a tool or a file has its controls shown, with markdown too.
func TestTranscriptShowsControlsVisibly(t *testing.T) {
	st := testUI()
	esc := "\x1b]0;t\x07\x1b[8m\u202e"
	items := []*item{
		{kind: kindUser, ready: true, text: "u" + esc},
		{kind: kindAssistant, ready: true, text: "a" + esc + " &#27;[8m", thinking: "th" + esc, args: "bash " + esc, errText: "e" + esc},
		{kind: kindTool, ready: true, tool: "bash", args: `{"command":"ls\n\u001b[8mrm"}`, status: "ok", result: "out" + esc},
		{kind: kindTool, ready: true, tool: "read", path: "f" + esc, status: "ok", result: "out" + esc},
		{kind: kindNotice, ready: true, text: "n" + esc},
		{kind: kindCompaction, ready: true, text: "c" + esc},
	}
	md := func(s string, w int) (string, error) { return s, nil }
	for _, it := range items {
		out := strings.Join(it.render(st, 80, viewOpts{thinking: true, markdown: md}), "\n")
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("item %d draws a control raw: %q", it.kind, out)
		}
	}
}

func testModel(t *testing.T) *Model {
	t.Helper()
	dir := t.TempDir()
	h, err := host.Open(context.Background(), paths.Places{Home: dir, AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	rts, err := runtime.New(runtime.Options{Host: h})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rts.Close() })
	m := New(Deps{Host: h, Runtimes: rts, UI: testUI()})
	t.Cleanup(m.Close)
	m.project = &projects.Project{Name: "p"}
	m.sid = "s1"
	return m
}

// navOps counts the layers the view opened and closed since last asked.
func navOps(m *Model) (pushed, closed int) {
	for _, op := range m.d.UI.Nav.Drain() {
		if op.Push != nil {
			pushed++
		} else {
			closed++
		}
	}
	return
}

// deliver hands the view the next batch from its subscription, as its
// program would.
func deliver(m *Model) {
	if msg := m.br.wait()(); msg != nil {
		m.Update(msg)
	}
}

// asking asks the core about a bash call of session sid until ctx ends;
// the answer (or the error) arrives on the returned channel.
func asking(ctx context.Context, m *Model, sid string) chan error {
	done := make(chan error, 1)
	go func() {
		a, err := m.d.Runtimes.Events().Ask(ctx, sid, "", "", agent.Approval{Tool: "bash", Command: "touch X"})
		if err == nil && a.Allow {
			err = errors.New("allowed")
		}
		done <- err
	}()
	return done
}

// TestApprovalBelongsToItsSession: a question of a session no window shows
// is not put to this one; the end of a turn closes its question
// unanswered; leaving a session denies and closes what it asked.
func TestApprovalBelongsToItsSession(t *testing.T) {
	m := testModel(t)
	m.br.show("s1")
	if err := <-asking(t.Context(), m, "s2"); !errors.Is(err, events.ErrUnattended) {
		t.Fatalf("a question of a session nobody shows: %v", err)
	}

	turn, end := context.WithCancel(t.Context())
	mine := asking(turn, m, "s1")
	deliver(m)
	if p, _ := navOps(m); p != 1 {
		t.Fatal("the session's own question was not shown")
	}
	end()
	if err := <-mine; !errors.Is(err, context.Canceled) {
		t.Fatalf("the ended turn's question: %v", err)
	}
	deliver(m)
	if _, c := navOps(m); c != 1 || !strings.Contains(m.items[len(m.items)-1].text, "withdrawn") {
		t.Fatal("the end of the turn left its question open, or said nothing")
	}

	again := asking(t.Context(), m, "s1")
	deliver(m)
	navOps(m)
	m.close() // to the session list
	if _, c := navOps(m); c != 1 {
		t.Fatal("leaving the session did not close its question")
	}
	if err := <-again; err != nil {
		t.Fatalf("leaving the session did not deny its question: %v", err)
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
	got := diffFor(root, agent.Approval{Tool: "edit", Path: "f.txt", Args: args}).String()
	want := "@@ -7,7 +7,7 @@\n" +
		" 7  7 │   line 7\n 8  8 │   line 8\n 9  9 │   line 9\n" +
		"10    │ - line 10\n   10 │ + ten\n" +
		"11 11 │   line 11\n12 12 │   line 12\n13 13 │   line 13\n"
	if got != want {
		t.Fatalf("edit diff:\n%s\nwant:\n%s", got, want)
	}
	// The dialog draws those rows, numbers and all.
	d := newApprovalDialog(testUI(), &ask{root: root, req: agent.Approval{Tool: "edit", Path: "f.txt", Args: args},
		diff: diffFor(root, agent.Approval{Tool: "edit", Path: "f.txt", Args: args})}, "proj", nil)
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
