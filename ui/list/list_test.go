package list

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// row is a test row: a heading (one line, the cursor skips it) or an
// entry of some lines.
type row struct {
	name    string
	heading bool
	lines   int
}

func rows(spec string) []row {
	var out []row
	for _, f := range strings.Fields(spec) {
		switch {
		case strings.HasPrefix(f, "#"):
			out = append(out, row{name: f, heading: true, lines: 1})
		case strings.HasSuffix(f, "+"):
			out = append(out, row{name: strings.TrimSuffix(f, "+"), lines: 2})
		default:
			out = append(out, row{name: f, lines: 1})
		}
	}
	return out
}

func newList(spec string, lines int) *List[row] {
	l := New[row](DefaultKeyMap())
	l.Height = func(r row) int { return r.lines }
	l.Selectable = func(r row) bool { return !r.heading }
	l.SetItems(rows(spec))
	l.SetLines(lines)
	return &l
}

// shown is what the window draws: the names of its rows, the cursor's
// marked with ›.
func shown(l *List[row]) string {
	var out []string
	for i, r := range l.Window() {
		if i == l.Cursor() {
			out = append(out, "›"+r.name)
		} else {
			out = append(out, r.name)
		}
	}
	return strings.Join(out, " ")
}

func press(l *List[row], keys ...string) {
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "up", "down", "pgup", "pgdown", "home", "end":
			msg = tea.KeyMsg{Type: map[string]tea.KeyType{"up": tea.KeyUp, "down": tea.KeyDown,
				"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd}[k]}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		l.Update(msg)
	}
}

func TestCursorSkipsHeadingsAndShowsThemWithTheirRows(t *testing.T) {
	l := newList("#A a1 a2 #B b1 b2 b3", 4)
	for _, c := range []struct{ keys, want string }{
		{"", "#A ›a1 a2 #B"},
		{"j j", "a1 a2 #B ›b1"}, // scrolled as little as it can
		{"j j", "#B b1 b2 ›b3"},
		{"k k", "#B ›b1 b2 b3"},
		{"k", "›a2 #B b1 b2"}, // a2 is no first row: only it needs to show
		{"g", "#A ›a1 a2 #B"},
		{"G", "#B b1 b2 ›b3"},
		{"home", "#A ›a1 a2 #B"},
		{"end", "#B b1 b2 ›b3"},
	} {
		press(l, strings.Fields(c.keys)...)
		if got := shown(l); got != c.want {
			t.Errorf("after %q: window %q, want %q", c.keys, got, c.want)
		}
	}
}

func TestScrollingUpShowsTheHeading(t *testing.T) {
	l := newList("#A a1 a2 #B b1 b2 b3 b4 b5", 3)
	press(l, "end", "k", "k", "k")
	if got := shown(l); got != "›b2 b3 b4" {
		t.Fatalf("window %q", got)
	}
	press(l, "k")
	if got := shown(l); got != "#B ›b1 b2" {
		t.Errorf("up onto a section's first row: %q, want its heading shown", got)
	}
}

func TestRowsOfTwoLines(t *testing.T) {
	l := newList("#P p1+ p2+ p3+ p4+", 5) // the heading and two projects fit
	if got := shown(l); got != "#P ›p1 p2" {
		t.Fatalf("first window %q", got)
	}
	press(l, "j", "j")
	if got := shown(l); got != "p2 ›p3" {
		t.Errorf("after two downs %q, want p2 ›p3", got)
	}
	press(l, "pgdown")
	if got, _ := l.Selected(); got.name != "p4" {
		t.Errorf("pgdn went to %s, want p4 (the last)", got.name)
	}
	press(l, "pgup")
	if got, _ := l.Selected(); got.name != "p2" {
		t.Errorf("pgup went to %s, want p2 (two rows of four lines back)", got.name)
	}
}

// Whatever keys are pressed, with rows of one and two lines and
// headings, the cursor's row is drawn, whole, in the window.
func TestCursorAlwaysInTheWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := []string{"up", "down", "pgup", "pgdown", "home", "end", "j", "k"}
	for n := range 200 {
		var spec []string
		for i := range r.IntN(30) {
			switch r.IntN(4) {
			case 0:
				spec = append(spec, fmt.Sprint("#h", i))
			case 1:
				spec = append(spec, fmt.Sprint("r", i, "+"))
			default:
				spec = append(spec, fmt.Sprint("r", i))
			}
		}
		lines := 2 + r.IntN(10)
		l := newList(strings.Join(spec, " "), lines)
		for range 40 {
			k := keys[r.IntN(len(keys))]
			press(l, k)
			if r.IntN(10) == 0 {
				lines = 2 + r.IntN(10)
				l.SetLines(lines)
			}
			c := l.Cursor()
			if c < 0 {
				if slices.ContainsFunc(l.Items(), func(x row) bool { return !x.heading }) {
					t.Fatalf("case %d: no cursor over %v", n, spec)
				}
				continue
			}
			if !strings.Contains(" "+shown(l)+" ", " ›") {
				t.Fatalf("case %d: after %s the cursor (row %d) is not in the window %q of %d lines over %v", n, k, c, shown(l), lines, spec)
			}
			used := 0
			for _, x := range l.Window() {
				used += x.lines
			}
			if used > lines {
				t.Fatalf("case %d: the window draws %d lines in %d", n, used, lines)
			}
		}
	}
}

func TestWindowNeverLeavesRoomBelowWhileRowsAreHidden(t *testing.T) {
	l := newList("a b c d e f g h", 3)
	press(l, "end")
	if got := shown(l); got != "f g ›h" {
		t.Fatalf("end: %q", got)
	}
	l.SetLines(6)
	if got := shown(l); got != "c d e f g ›h" {
		t.Errorf("a taller window shows %q, want the rows above back", got)
	}
	l.SetItems(rows("a b c"))
	if got := shown(l); got != "a b ›c" {
		t.Errorf("a shorter list shows %q", got)
	}
}

// Rows the cursor may not rest on after the last one it may (Settings'
// warnings under its last setting) come into view when the cursor is on
// that last row: nothing else would scroll to them.
func TestTheLastRowShowsTheRowsBelowIt(t *testing.T) {
	l := newList("a b c d #w1 #w2 #w3", 4)
	press(l, "end")
	if got := shown(l); got != "›d #w1 #w2 #w3" {
		t.Fatalf("end: %q", got)
	}
	press(l, "up")
	if got := shown(l); got != "›c d #w1 #w2" {
		t.Errorf("up from the last row: %q", got)
	}
	// More text below than the window holds: the cursor stays on top.
	l = newList("a b c d #w1 #w2 #w3 #w4 #w5", 4)
	press(l, "end")
	if got := shown(l); got != "›d #w1 #w2 #w3" {
		t.Errorf("end above a long tail: %q", got)
	}
}

func TestFilterKeepsTheCursorOnItsRow(t *testing.T) {
	l := newList("apple banana cherry avocado", 10)
	press(l, "j", "j", "j") // avocado
	l.SetFilter(func(r row) bool { return strings.HasPrefix(r.name, "a") })
	if got := shown(l); got != "apple ›avocado" {
		t.Errorf("filtered: %q", got)
	}
	l.SetFilter(func(r row) bool { return strings.HasPrefix(r.name, "b") })
	if got := shown(l); got != "›banana" {
		t.Errorf("the cursor's row filtered out: %q, want the first match", got)
	}
	l.SetFilter(func(r row) bool { return false })
	if _, ok := l.Selected(); ok || shown(l) != "" {
		t.Errorf("nothing matches, yet %q is shown", shown(l))
	}
	l.SetFilter(nil)
	if got := shown(l); got != "›apple banana cherry avocado" {
		t.Errorf("unfiltered: %q", got)
	}
}

func TestWrapGoesRoundOnlyOneStepAtATime(t *testing.T) {
	l := newList("a b c", 10)
	l.Wrap = true
	press(l, "k")
	if got := shown(l); got != "a b ›c" {
		t.Errorf("up from the first: %q", got)
	}
	press(l, "j")
	if got := shown(l); got != "›a b c" {
		t.Errorf("down from the last: %q", got)
	}
	press(l, "end", "pgdown")
	if got := shown(l); got != "a b ›c" {
		t.Errorf("pgdn wrapped: %q", got)
	}
}

func TestSelectAndTypingKeys(t *testing.T) {
	l := newList("#A a #B b", 10)
	if !l.Select(func(r row) bool { return r.name == "b" }) || shown(l) != "#A a #B ›b" {
		t.Errorf("select b: %q", shown(l))
	}
	if l.Select(func(r row) bool { return r.name == "#A" }) {
		t.Error("selected a heading")
	}
	l.Keys = TypingKeyMap()
	press(l, "g", "k") // typed letters: not moving keys here
	if got := shown(l); got != "#A a #B ›b" {
		t.Errorf("letters moved a list under a text field: %q", got)
	}
	press(l, "up")
	if got := shown(l); got != "#A ›a #B b" {
		t.Errorf("up: %q", got)
	}
}

// A row taller than the whole window (a long sentence wrapped on a small
// screen) is still drawn when the cursor is on it, from its first line;
// the rows after it wait for the next window.
func TestARowTallerThanTheWindowIsDrawn(t *testing.T) {
	l := New[row](DefaultKeyMap())
	l.Height = func(r row) int { return r.lines }
	l.SetItems([]row{{name: "a", lines: 1}, {name: "tall", lines: 9}, {name: "b", lines: 1}})
	l.SetLines(4)
	press(&l, "j")
	if got := shown(&l); got != "›tall" {
		t.Errorf("on the tall row: %q", got)
	}
	press(&l, "j")
	if got := shown(&l); got != "›b" {
		t.Errorf("past it: %q", got)
	}
	press(&l, "home")
	if got := shown(&l); got != "›a" {
		t.Errorf("home: %q", got)
	}
}
