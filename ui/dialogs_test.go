package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// The quit dialog says that only the unsaved changes would be lost, not
// the file, and names them as the editor does.
func TestQuitDialogSaysUnsavedChangesWouldBeLost(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	f.write("proj/AGENTS.md", "text")
	s := f.run(80, 24)
	s.waitFor("proj")
	s.keys("enter", "a")
	s.waitFor("text")
	s.tm.Type("x")
	s.keys("ctrl+c")
	frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Quit pi-tui?") })
	if !strings.Contains(frame, "Unsaved changes to ~/proj/AGENTS.md would be lost.") || strings.Contains(frame, "would lose") {
		t.Errorf("the quit dialog does not say that only the unsaved changes would be lost:\n%s", frame)
	}
	s.keys("n")
	s.waitScreen("modified") // back in the editor, the text kept
	s.final()
}

// Quitting while the agent works says what happens to its turn.
func TestQuitDialogSaysWhatHappensToTheRunningTurn(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	r := newKitRig(t, 80, 24, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "partial words then more", Hold: hold}
	}, true)
	defer close(hold)
	r.chat()
	r.say("slow one")
	r.waitFor("partial")
	r.keys("ctrl+c")
	r.waitScreen("Quit pi-tui?", "The agent's running turn would be stopped;", "stays in the session.")
	r.keys("n")
	r.keys("esc") // abort the turn, so the test ends with nothing running
	r.waitFor("partial: the answer was cut off or aborted")
	r.final()
}

// editorCase opens an editor on the project, changes something in it and
// says what its file or store holds.
type editorCase struct {
	name   string
	open   func(s *session)
	change func(s *session)
	stored func(f *fixture) string
	saved  string // the notice after a save
}

func editorCases() []editorCase {
	return []editorCase{{
		name: "AGENTS.md",
		open: func(s *session) {
			s.keys("enter", "a")
			s.waitFor("original")
		},
		change: func(s *session) { s.tm.Type("mine ") },
		stored: func(f *fixture) string { return f.read("proj/AGENTS.md") },
		saved:  "saved ~/proj/AGENTS.md",
	}, {
		name: "memory",
		open: func(s *session) {
			s.keys("enter", "m")
			s.waitFor("32,768 bytes")
		},
		change: func(s *session) {
			s.keys("a")
			s.tm.Type("Note")
			s.keys("enter")
			s.tm.Type("Use gofmt.")
			s.keys("esc") // back to the list
		},
		stored: func(f *fixture) string {
			m, err := f.host.Memory.Load(context.Background(), f.home+"/proj")
			if err != nil {
				f.t.Fatal(err)
			}
			return m.Content
		},
		saved: "saved memory of proj",
	}}
}

// Both editors ask the same question when closed with unsaved changes,
// in the same words with the same keys, and do the same with each
// answer: k keeps editing, s saves and then closes, d closes without
// saving.
func TestEditorsAskTheSameWhenClosedUnsaved(t *testing.T) {
	t.Parallel()
	questions := map[string]string{}
	for _, c := range editorCases() {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.add("proj", "proj", true)
			f.write("proj/AGENTS.md", "original")
			s := f.run(80, 24)
			s.waitFor("proj")
			c.open(s)
			before := c.stored(f)
			c.change(s)
			s.keys("esc")
			frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Unsaved changes") })
			questions[c.name] = dialogText(frame)
			for _, want := range []string{"s save and close", "d discard and close", "k/esc keep editing", "are not saved"} {
				if !strings.Contains(questions[c.name], want) {
					t.Errorf("the question lacks %q:\n%s", want, frame)
				}
			}

			s.keys("k") // keep editing
			s.sc.WaitFrame(func(f string) bool { return !strings.Contains(f, "Unsaved changes") && strings.Contains(f, "modified") })
			s.keys("esc")
			s.waitScreen("Unsaved changes")
			s.keys("s") // save, then close
			s.waitFor(c.saved)
			s.waitScreen("sort: recent") // closed: the Projects tab shows
			saved := c.stored(f)
			if saved == before {
				t.Errorf("s did not save: %q", saved)
			}

			c.open(s)
			c.change(s)
			s.keys("esc")
			s.waitScreen("Unsaved changes")
			s.keys("d") // discard and close
			s.waitScreen("sort: recent")
			if got := c.stored(f); got != saved {
				t.Errorf("d saved: %q, want %q", got, saved)
			}
			s.final()
		})
	}
	if a, m := questions["AGENTS.md"], questions["memory"]; a != "" && m != "" {
		norm := func(s string) string {
			s = strings.ReplaceAll(s, "~/proj/AGENTS.md", "X")
			return strings.Join(strings.Fields(strings.ReplaceAll(s, "the memory of proj", "X")), " ")
		}
		if norm(a) != norm(m) {
			t.Errorf("the editors ask differently:\nAGENTS.md: %s\nmemory:    %s", a, m)
		}
	}
}

// dialogText is the text inside the dialog box a frame shows, its lines
// joined with spaces.
func dialogText(frame string) string {
	var out []string
	for _, l := range boxLines(frame) {
		out = append(out, strings.TrimSpace(strings.Trim(l, "│")))
	}
	return strings.Join(out, " ")
}

// boxLines are the lines of the dialog box in frame, from its left border
// to its right one, without the top and bottom borders.
func boxLines(frame string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(frame, "\n") {
		switch {
		case strings.Contains(l, "╭"):
			in = true
		case strings.Contains(l, "╰"):
			return out
		case in:
			i, j := strings.Index(l, "│"), strings.LastIndex(l, "│")
			if i >= 0 && j > i {
				out = append(out, l[i:j+len("│")])
			}
		}
	}
	return out
}

// A dialog's text wraps inside its border at 80×24: a path longer than a
// line, with wide runes in it, breaks only after a slash, a long word
// goes whole to the next line, and every line of the box has its borders
// in the same columns.
func TestDialogTextWrapsAtWordsInsideTheBorder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := "src/日本語のプロジェクト/a-rather-long-folder-name/another-quite-long-folder/the-project"
	long := "Supercalifragilisticexpialidocious-and-then-some-more-letters"
	f.add(dir, long, true)
	f.write(dir+"/AGENTS.md", "text")
	s := f.run(80, 24)
	s.waitFor("Supercali")

	s.keys("D") // remove: the name is a long word
	frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Press D again") })
	text := readBox(t, frame)
	for _, want := range []string{"pi-tui forgets " + long + ", its 0 sessions and its memory.", "The folder ~/" + dir + " stays on disk, untouched."} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog's text, read line by line, is not %q (a word was split, or text lost):\n%s", want, frame)
		}
	}
	s.keys("n")

	s.keys("a") // the editor, then quit with its changes unsaved
	s.waitFor("text")
	s.tm.Type("x")
	s.keys("ctrl+c")
	frame = s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Quit pi-tui?") })
	if want := "Unsaved changes to ~/" + dir + "/AGENTS.md would be lost."; !strings.Contains(readBox(t, frame), want) {
		t.Errorf("the dialog's text, read line by line, is not %q (a word was split, or text lost):\n%s", want, frame)
	}
	s.keys("n")
	s.final()
}

// readBox checks that every line of the dialog box in frame has its
// borders in the columns of its corners (no text runs past them or back
// under them) and returns the box's text as read: lines joined with a
// space, except after a line ending in a slash (a path broken between
// its folders).
func readBox(t *testing.T, frame string) string {
	t.Helper()
	left, right := -1, -1
	var b strings.Builder
	prev := ""
	for _, l := range strings.Split(frame, "\n") {
		if i := strings.Index(l, "╭"); i >= 0 && left < 0 {
			left = ansi.StringWidth(l[:i])
			right = ansi.StringWidth(l[:strings.Index(l, "╮")])
			continue
		}
		if left < 0 {
			continue
		}
		if strings.Contains(l, "╰") {
			return b.String()
		}
		i, j := strings.Index(l, "│"), strings.LastIndex(l, "│")
		if i < 0 || j <= i || ansi.StringWidth(l[:i]) != left || ansi.StringWidth(l[:j]) != right {
			t.Errorf("a line of the box does not have its borders in columns %d and %d: %q\n%s", left, right, l, frame)
			continue
		}
		line := strings.TrimSpace(l[i+len("│") : j])
		if line == "" {
			continue
		}
		if prev != "" && !strings.HasSuffix(prev, "/") {
			b.WriteString(" ")
		}
		b.WriteString(line)
		prev = line
	}
	t.Fatalf("no dialog box:\n%s", frame)
	return ""
}

// Paths in dialogs write the home folder as ~: the session delete
// dialog names the session's file under ~/.pi.
func TestDialogPathsUseTilde(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 80, 24, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "answer to " + req.LastUser}
	}, true)
	r.chat()
	r.say("hello")
	r.waitFor("answer to hello")
	// The row, not only the list's title: D on a list still loading has
	// no session to delete.
	r.sessions("2 messages")
	r.keys("D")
	frame := r.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Delete session") })
	box := dialogText(frame)
	if !strings.Contains(box, "~/.pi/agent/sessions/") || strings.Contains(box, r.home) {
		t.Errorf("the dialog does not write the home folder as ~:\n%s", frame)
	}
	r.keys("n")
	r.final()
}

// boxEdges checks that the dialog box holding title is drawn with
// nothing beside it: the cells around its border are blank, so no edge
// of the dialog beneath shows as a second border ("╭╭──…╮╮").
func boxEdges(t *testing.T, frame, title string) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	grid := make([][]rune, len(lines))
	for i, l := range lines {
		grid[i] = []rune(l)
	}
	at := func(y, x int) rune {
		if y < 0 || y >= len(grid) || x < 0 || x >= len(grid[y]) {
			return ' '
		}
		return grid[y][x]
	}
	ty, tx := -1, -1
	for y, l := range lines {
		if i := strings.Index(l, title); i >= 0 {
			ty, tx = y, len([]rune(l[:i]))
			break
		}
	}
	if ty < 0 {
		t.Fatalf("no %q on screen:\n%s", title, frame)
	}
	left := tx
	for left >= 0 && at(ty, left) != '│' {
		left--
	}
	top, bottom, right := ty, ty, left+1
	for top >= 0 && at(top, left) != '╭' {
		top--
	}
	for bottom < len(grid) && at(bottom, left) != '╰' {
		bottom++
	}
	for right < len(grid[top]) && at(top, right) != '╮' {
		right++
	}
	if left < 0 || top < 0 || bottom >= len(grid) || right >= len(grid[top]) {
		t.Fatalf("no box around %q:\n%s", title, frame)
	}
	for y := top - 1; y <= bottom+1; y++ {
		for x := left - 1; x <= right+1; x++ {
			if y >= top && y <= bottom && x >= left && x <= right {
				continue
			}
			if r := at(y, x); r != ' ' {
				t.Errorf("%q beside the box of %q (line %d, column %d):\n%s", r, title, y, x, frame)
				return
			}
		}
	}
}

// A dialog opened over another (in an approval: r asks for a reason, A
// opens the rule editor, ctrl+c asks whether to quit) is drawn with a
// clear cell around it, so nothing of the approval beneath shows at its
// edges as a doubled border.
func TestDialogOverADialogShowsNothingAtItsEdges(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 80, 24, bashOnce("touch X", nil), true)
	r.chat()
	r.say("run it")
	r.waitFor("Allow bash?")
	r.settle()
	for _, c := range []struct{ key, title, back string }{
		{"r", "Deny bash: why?", "esc"},
		{"A", "Always allow bash in proj", "esc"},
		{"ctrl+c", "Quit pi-tui?", "n"},
	} {
		r.keys(c.key)
		frame := r.sc.WaitFrame(func(f string) bool { return strings.Contains(f, c.title) })
		boxEdges(t, frame, c.title)
		for _, doubled := range []string{"╭╭", "╮╮", "││", "╰╰", "╯╯"} {
			if strings.Contains(frame, doubled) {
				t.Errorf("%s: a doubled border %q:\n%s", c.key, doubled, frame)
			}
		}
		r.keys(c.back)
		r.sc.WaitFrame(func(f string) bool { return !strings.Contains(f, c.title) && strings.Contains(f, "Allow bash?") })
	}
	r.keys("n")
	r.waitFor("tool said: The user denied")
	r.final()
}
