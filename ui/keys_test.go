package ui

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/extdialog"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
	"github.com/pi-tui/pi-tui/ui/memoryeditor"
)

// Every list's help shows home and end, as keys of the list's own key
// table: the help and docs/keys.md's key table (made from the same help)
// say what they do wherever a list is.
func TestEveryListShowsHomeAndEnd(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	m := f.model()
	ps, err := f.host.Projects.List(context.Background(), true)
	if err != nil || len(ps) == 0 {
		t.Fatalf("projects: %v %v", ps, err)
	}
	m.session.Open(ps[0])
	menu := dialog.NewMenu(m.st, "menu", []dialog.Item{{Key: key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open"))}})
	for _, c := range []struct {
		where string
		help  [][]key.Binding
	}{
		{"Projects", m.projects.Help()},
		{"Session (list)", m.session.Help()},
		{"Settings", m.settings.Help()},
		{"Memory", memoryeditor.New(f.host, m.st, ps[0].Root, ps[0].Name).Help()},
		{"Review", reviewHelp()},
		{"menus", menu.Help()},
		{"extension select", [][]key.Binding{extdialog.NewKeys(extdialog.MethodSelect).Nav.Bindings()}},
		{"help screen", [][]key.Binding{newHelpKeys().Nav.Bindings()}},
	} {
		for _, k := range []struct {
			msg  tea.KeyMsg
			name string
		}{{tea.KeyMsg{Type: tea.KeyHome}, "home"}, {tea.KeyMsg{Type: tea.KeyEnd}, "end"}} {
			found := false
			for _, col := range c.help {
				for _, b := range col {
					if key.Matches(k.msg, b) && strings.HasPrefix(b.Help().Key, k.name) {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("%s: its help shows no %s", c.where, k.name)
			}
		}
	}
}

// cursorLine waits for the frame whose cursor row (›) holds want.
func cursorLine(t *testing.T, s *session, want string) {
	t.Helper()
	s.sc.WaitFrame(func(frame string) bool {
		for _, l := range strings.Split(frame, "\n") {
			if i := strings.Index(l, "›"); i >= 0 && strings.Contains(l[i:], want) {
				return true
			}
		}
		return false
	})
}

// home and end go to the first and the last row in the lists a user
// walks, driven as a user drives them at 80×24: Projects with more
// projects than the screen holds, a row menu, the memory editor's
// entries and the sessions list.
func TestHomeAndEndInEveryList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i := range 30 {
		name := fmt.Sprintf("p%02d", i+1)
		f.add(name, name, true)
	}
	ctx := context.Background()
	ps, err := f.host.Projects.List(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	var first = ps[0]
	for _, p := range ps {
		if p.Name == "p01" {
			first = p
		}
	}
	mem, _ := f.host.Memory.Load(ctx, first.Root)
	if _, err := f.host.Memory.Save(ctx, mem, []memory.Entry{{ID: "a", Title: "alpha", Content: "1"}, {ID: "b", Title: "beta", Content: "2"}, {ID: "c", Title: "gamma", Content: "3"}}); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"oldest task", "middle task", "newest task"} {
		sess, err := f.host.Sessions.Create(ctx, first.ID, text)
		if err != nil {
			t.Fatal(err)
		}
		msg := map[string]any{"message": provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: text}}}}
		if _, err := sess.Append(ctx, sessions.TypeUser, msg); err != nil {
			t.Fatal(err)
		}
	}
	s := f.run(80, 24)
	s.waitFor("› p")
	s.keys("s") // by name
	s.waitFor("sort: name")
	s.keys("end")
	cursorLine(t, s, "p30")
	s.keys("home")
	cursorLine(t, s, "p01")

	s.keys("enter") // the row menu
	s.waitFor("Open session")
	s.keys("end")
	cursorLine(t, s, "Remove")
	s.keys("home")
	cursorLine(t, s, "Open session")

	s.keys("esc", "m") // the memory editor's entries
	s.waitFor("gamma")
	s.keys("end")
	cursorLine(t, s, "gamma")
	s.keys("home")
	cursorLine(t, s, "alpha")

	s.keys("esc", "o") // the sessions list, newest first
	// Sessions made in one millisecond may list in either order: take
	// the order the screen shows, and ask end and home for its ends.
	names := []string{"oldest task", "middle task", "newest task"}
	frame := s.sc.WaitFrame(func(frame string) bool {
		for _, n := range names {
			if !strings.Contains(frame, n) {
				return false
			}
		}
		return true
	})
	slices.SortFunc(names, func(a, b string) int { return strings.Index(frame, a) - strings.Index(frame, b) })
	s.keys("end")
	cursorLine(t, s, names[2])
	s.keys("home")
	cursorLine(t, s, names[0])
	s.final()
}

// The shell's own keys are all in its help (on a tab, and while typing),
// and its help holds only them; while typing it shows no key that typing
// takes (q, ?, 1) nor shift+tab, which is the chat's thinking level.
func TestShellKeysAreData(t *testing.T) {
	t.Parallel()
	m := newFixture(t).model()
	onTab, typing := m.globalHelpAt(focusProjects, 0), m.globalHelpAt(focusSessionText, 0)
	keytest.Check(t, "shell", m.keys, [][]key.Binding{onTab, typing})
	for _, b := range typing {
		for _, k := range b.Keys() {
			if len([]rune(k)) == 1 || k == "shift+tab" {
				t.Errorf("while typing, the help shows %q, which typing takes", k)
			}
		}
	}
}

// The help screen shows every key of the chat at 80 and 120 columns:
// groups that do not fit side by side go on further rows, and what does
// not fit the height scrolls (pgdn) rather than being cut.
func TestHelpShowsEveryChatKey(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 35}} {
		t.Run(strconv.Itoa(size[0]), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.add("proj", "proj", true)
			m := f.model()
			s := newSession(t, m, size[0], size[1])
			s.waitFor("› proj")
			s.keys("enter", "o")
			s.waitFor("No sessions yet")
			s.keys("n")
			s.waitFor("Type a message")
			s.tm.Send(tea.KeyMsg{Type: tea.KeyF1})
			// Each page is read from the frame itself, whole: the terminal
			// gets only the lines a frame changed, perhaps in pieces.
			frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Keys · Session") })
			seen := []byte(frame)
			footer := regexp.MustCompile(`lines (\d+)–(\d+) of (\d+)`)
			for range 20 {
				last := footer.FindSubmatch([]byte(frame))
				if last == nil || string(last[2]) == string(last[3]) {
					break // everything fits (no footer), or this is the last page
				}
				s.keys("pgdown")
				from, _ := strconv.Atoi(string(last[1]))
				to, _ := strconv.Atoi(string(last[2]))
				n, _ := strconv.Atoi(string(last[3]))
				next := "–" + strconv.Itoa(min(to+to-from+1, n)) + " of " + strconv.Itoa(n)
				frame = s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, next) })
				seen = append(seen, frame...)
			}
			s.final()
			for _, g := range m.session.Help() {
				for _, b := range g {
					h := b.Help()
					word := strings.Fields(h.Desc)[0]
					if !regexp.MustCompile(regexp.QuoteMeta(h.Key) + ` +` + regexp.QuoteMeta(word)).Match(seen) {
						t.Errorf("help at %dx%d lacks %q (%s)", size[0], size[1], h.Key, h.Desc)
					}
				}
			}
		})
	}
}

// The help screen's footer says whole how to scroll and close it at 60
// columns ("press ? or esc to" lost its end), and the last key line can
// still be scrolled to.
func TestHelpFooterWrapsAtSixtyColumns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	s := f.run(60, 20)
	s.waitScreen("› proj", "model: no model")
	s.keys("?")
	frame := s.waitKeys("Keys · Projects", "↑/↓ pgup/pgdn scroll · press ? or esc to close")
	assertFrame(t, frame, 60, 20)
	s.keys("end")
	frame = s.waitKeys("ctrl+k command palette: go to a session, project, setting or command", "press ? or esc to close")
	assertFrame(t, frame, 60, 20)
	s.final()
}
