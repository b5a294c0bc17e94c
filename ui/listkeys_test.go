package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/extdialog"
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
