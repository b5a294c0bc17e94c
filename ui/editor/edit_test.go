package editor

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/ui/common"
)

// press sends keys by name, as bubbletea names them (ctrl+a, alt+b, …),
// or text.
func press(b *Buffer, ks ...string) {
	named := map[string]tea.KeyMsg{
		"ctrl+a": {Type: tea.KeyCtrlA}, "ctrl+e": {Type: tea.KeyCtrlE}, "ctrl+u": {Type: tea.KeyCtrlU},
		"ctrl+k": {Type: tea.KeyCtrlK}, "ctrl+w": {Type: tea.KeyCtrlW}, "ctrl+z": {Type: tea.KeyCtrlZ},
		"ctrl+y": {Type: tea.KeyCtrlY}, "alt+b": {Type: tea.KeyRunes, Runes: []rune{'b'}, Alt: true},
		"alt+f": {Type: tea.KeyRunes, Runes: []rune{'f'}, Alt: true}, "ctrl+left": {Type: tea.KeyCtrlLeft},
		"ctrl+right": {Type: tea.KeyCtrlRight}, "left": {Type: tea.KeyLeft}, "enter": {Type: tea.KeyEnter},
		"backspace": {Type: tea.KeyBackspace}, "space": {Type: tea.KeySpace, Runes: []rune{' '}},
	}
	for _, k := range ks {
		msg, ok := named[k]
		if !ok {
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		b.Update(msg)
	}
}

func TestReadlineKeys(t *testing.T) {
	b := newTestBuffer(40, 5)
	press(b, "one two three")
	for _, c := range []struct {
		keys []string
		want string
	}{
		{[]string{"alt+b", "X"}, "one two Xthree"},
		{[]string{"ctrl+left", "ctrl+left", "Y"}, "one Ytwo Xthree"},
		{[]string{"alt+f", "Z"}, "one YtwoZ Xthree"},
		{[]string{"ctrl+right", "ctrl+right", "!"}, "one YtwoZ Xthree!"},
		{[]string{"ctrl+a", ">"}, ">one YtwoZ Xthree!"},
		{[]string{"ctrl+e", "<"}, ">one YtwoZ Xthree!<"},
		{[]string{"ctrl+w"}, ">one YtwoZ "},
		{[]string{"left", "left", "ctrl+k"}, ">one Ytwo"},
		{[]string{"left", "left", "ctrl+u"}, "wo"},
	} {
		press(b, c.keys...)
		if got := b.Value(); got != c.want {
			t.Fatalf("after %v: %q, want %q", c.keys, got, c.want)
		}
	}
}

func TestUndoRedo(t *testing.T) {
	b := newTestBuffer(40, 5)
	press(b, "hello", "space", "world")
	b.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("\npasted\nlines"), Paste: true})
	press(b, "backspace", "backspace")
	if got := b.Value(); got != "hello world\npasted\nlin" {
		t.Fatalf("value %q", got)
	}
	// A run of deletions is one step, the paste another, the typing a third.
	for _, want := range []string{"hello world\npasted\nlines", "hello world", ""} {
		press(b, "ctrl+z")
		if got := b.Value(); got != want {
			t.Fatalf("undo: %q, want %q", got, want)
		}
	}
	if b.Undo() {
		t.Error("undo with nothing to undo reports a change")
	}
	press(b, "ctrl+y", "ctrl+y")
	if got := b.Value(); got != "hello world\npasted\nlines" {
		t.Fatalf("redo: %q", got)
	}
	if row, col := b.Cursor(); row != 2 || col != 5 {
		t.Errorf("cursor after redo at %d:%d, want the paste's end 2:5", row, col)
	}
	// A new edit drops what could be redone.
	press(b, "!")
	if b.Redo() {
		t.Error("redo after a new edit")
	}
	if b.Len() != len(b.Value()) {
		t.Errorf("Len %d after undo and redo, text has %d bytes", b.Len(), len(b.Value()))
	}
	// A move ends the run of typing: the next characters are a step of
	// their own.
	press(b, "left", "?", "ctrl+z")
	if got := b.Value(); got != "hello world\npasted\nlines!" {
		t.Errorf("undo after a move: %q", got)
	}
}

func TestFind(t *testing.T) {
	b := newTestBuffer(40, 3)
	b.SetValue("Alpha\nbeta alpha\ngamma\nALPHA delta")
	if !b.Find("alpha", true) {
		t.Fatal("no match for alpha")
	}
	var seen [][2]int
	for range 4 {
		row, col := b.Cursor()
		seen = append(seen, [2]int{row, col})
		b.Find("alpha", true)
	}
	want := [][2]int{{1, 5}, {3, 0}, {0, 0}, {1, 5}} // from 0:0: past the cursor, wrapping
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("matches visited %v, want %v", seen, want)
		}
	}
	b.Find("alpha", false)
	if row, col := b.Cursor(); row != 1 || col != 5 {
		t.Errorf("previous match at %d:%d, want 1:5", row, col)
	}
	if b.Count("alpha") != 3 || b.Count("ALPHA") != 1 {
		t.Errorf("smart case: %d matches of alpha, %d of ALPHA", b.Count("alpha"), b.Count("ALPHA"))
	}
	if b.Find("zeta", true) {
		t.Error("found what is not there")
	}
	// The found line is scrolled into view.
	b.SetCursor(0, 0)
	b.Find("delta", true)
	if !strings.Contains(b.View(), "ALPHA delta") {
		t.Errorf("match not on screen:\n%s", b.View())
	}
}

func TestRowsStopAtTheLimitAndMarksShowHiddenText(t *testing.T) {
	b := newTestBuffer(10, 3)
	b.ShowScrollMarks()
	b.SetValue(strings.Repeat("line\n", 4999) + "last")
	if n := b.Rows(7); n != 7 {
		t.Errorf("Rows(7) = %d", n)
	}
	b.SetValue("a b c d e f g") // wraps to 2 rows of 10 cells
	if n := b.Rows(7); n != 2 {
		t.Errorf("Rows of a wrapped line = %d, want 2", n)
	}
	b.SetValue("1\n2\n3\n4\n5\n6")
	b.MoveToEnd()
	rows := strings.Split(b.View(), "\n")
	if !strings.HasPrefix(rows[0], "↑ 4") || !strings.HasPrefix(rows[2], "  6") {
		t.Errorf("scrolled to the end: %q", rows)
	}
	b.SetCursor(0, 0)
	rows = strings.Split(b.View(), "\n")
	if !strings.HasPrefix(rows[2], "↓ 3") {
		t.Errorf("at the top: %q", rows)
	}
}

func TestReplaceWordBefore(t *testing.T) {
	b := newTestBuffer(40, 3)
	press(b, "read @src/ma")
	if w := b.WordBefore(); w != "@src/ma" {
		t.Fatalf("WordBefore = %q", w)
	}
	b.ReplaceWordBefore("@src/main.go ")
	press(b, "now")
	if got := b.Value(); got != "read @src/main.go now" {
		t.Fatalf("after completion: %q", got)
	}
	press(b, "ctrl+z", "ctrl+z")
	if got := b.Value(); got != "read @src/ma" {
		t.Errorf("undo of a completion: %q", got)
	}
}

// TestCursorShowsWithoutColour: under NO_COLOR (the Ascii profile) the
// cursor is still drawn in reverse video, which is not colour.
func TestCursorShowsWithoutColour(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	st := common.NewStyles(r)
	if st.Dim.Render("x") != "x" {
		t.Fatal("the Ascii profile should drop colour")
	}
	b := New(st.Cursor, st.Gutter)
	b.SetSize(20, 2)
	b.SetValue("abc")
	if v := b.View(); !strings.Contains(v, "\x1b[7ma\x1b[") {
		t.Errorf("no visible cursor without colour: %q", v)
	}
}

func newTestPage(t *testing.T, dir string, cfg Config) *Page {
	t.Helper()
	st := common.NewUI(common.NewStyles(lipgloss.NewRenderer(io.Discard)))
	cfg.Dir, cfg.Label = dir, "AGENTS.md"
	p := NewPage(cfg, st)
	p.View(80, 24)
	return p
}

// run feeds a command's messages back into the page until none is left
// (a batch is run item by item).
func run(p *Page, cmd tea.Cmd) {
	for q := []tea.Cmd{cmd}; len(q) > 0; q = q[1:] {
		if q[0] == nil {
			continue
		}
		switch msg := q[0]().(type) {
		case tea.BatchMsg:
			q = append(q, msg...)
		case nil:
		default:
			if _, ok := msg.(interface{ Tick() }); ok {
				continue
			}
			_, next := p.Update(msg)
			q = append(q, next)
		}
	}
}

func TestSaveEndsWithANewline(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "AGENTS.md")
	os.WriteFile(path, []byte("no newline"), 0o644)
	p := newTestPage(t, dir, Config{})
	run(p, p.load())
	if p.dirty() {
		t.Fatal("a file without a final newline is modified on opening")
	}
	press(p.buf, "end", "!")
	run(p, p.save(false))
	if got, _ := os.ReadFile(path); string(got) != "no newline!\n" {
		t.Errorf("saved %q", got)
	}
	if p.dirty() {
		t.Error("still modified after saving")
	}
}

// TestCtrlEOpensAFileTheEditorRefuses: the refusal of a file that is not
// UTF-8 advises ctrl+e; ctrl+e runs $EDITOR on it, and the page loads it
// once the editor made it valid.
func TestCtrlEOpensAFileTheEditorRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "AGENTS.md")
	os.WriteFile(path, []byte("caf\xe9\n"), 0o644)
	script := filepath.Join(dir, "fix.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nprintf 'fixed\\n' > \"$1\"\n"), 0o755)
	var ran []string
	p := newTestPage(t, dir, Config{Editor: script, Exec: func(cmd *exec.Cmd, done func(error) tea.Msg) tea.Cmd {
		ran = cmd.Args
		return func() tea.Msg { return done(cmd.Run()) }
	}})
	run(p, p.load())
	// The refusal wraps where the temp folder's name puts it: compare words.
	if v := strings.Join(strings.Fields(p.View(80, 24)), " "); !strings.Contains(v, "not valid UTF-8") || !strings.Contains(v, "ctrl+e open in $EDITOR") {
		t.Fatalf("refusal:\n%s", v)
	}
	_, cmd := p.Update(tea.KeyMsg{Type: tea.KeyCtrlE})
	run(p, cmd)
	if len(ran) != 2 || ran[1] != path {
		t.Fatalf("$EDITOR ran as %q", ran)
	}
	if p.Text() != "fixed\n" {
		t.Errorf("after $EDITOR the page holds %q", p.Text())
	}
}

func TestPageFind(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# Rules\n- run tests\n- run lint\n"), 0o644)
	p := newTestPage(t, dir, Config{})
	run(p, p.load())
	key := func(msgs ...tea.KeyMsg) {
		for _, m := range msgs {
			p.Update(m)
		}
	}
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	key(tea.KeyMsg{Type: tea.KeyCtrlF}, runes("r"), runes("u"), runes("n"))
	if v := p.View(80, 24); !strings.Contains(v, "find: run") || !strings.Contains(v, "2 matches") {
		t.Fatalf("search line:\n%s", v)
	}
	if row, col := p.buf.Cursor(); row != 1 || col != 2 {
		t.Fatalf("first match at %d:%d", row, col)
	}
	key(tea.KeyMsg{Type: tea.KeyEnter})
	if row, _ := p.buf.Cursor(); row != 2 {
		t.Fatalf("enter went to line %d", row)
	}
	key(tea.KeyMsg{Type: tea.KeyUp})
	if row, _ := p.buf.Cursor(); row != 1 {
		t.Fatalf("↑ went to line %d", row)
	}
	// One match is counted in the singular.
	key(runes(" t"))
	if v := p.View(80, 24); !strings.Contains(v, "find: run t") || !strings.Contains(v, "  1 match  ") {
		t.Errorf("search line for one match:\n%s", v)
	}
	key(tea.KeyMsg{Type: tea.KeyBackspace}, tea.KeyMsg{Type: tea.KeyBackspace})
	key(tea.KeyMsg{Type: tea.KeyEsc}, runes("X"))
	if got := p.Text(); got != "# Rules\n- Xrun tests\n- run lint\n" {
		t.Errorf("typing after the search: %q", got)
	}
	if strings.Contains(p.View(80, 24), "find:") {
		t.Error("the search line stays after esc")
	}
}

// Keys typed while the file is still loading (a slow disk, a link over
// SSH) are applied once it has loaded, in order, not dropped: "Be" typed
// before the load's answer stays at the start of the text.
func TestKeysTypedWhileLoadingAreKept(t *testing.T) {
	dir := t.TempDir()
	p := newTestPage(t, dir, Config{})
	load := p.load() // its answer comes after the keys below
	for _, r := range "Be" {
		p.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	run(p, load)
	p.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(" concise.")})
	run(p, p.save(false))
	if got, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md")); string(got) != "Be concise.\n" {
		t.Errorf("saved %q, want %q", got, "Be concise.\n")
	}
}
