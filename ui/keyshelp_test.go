package ui

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

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
			start := s.raw.Len()
			s.tm.Send(tea.KeyMsg{Type: tea.KeyF1})
			s.waitFor("Keys · Session")
			footer := regexp.MustCompile(`lines (\d+)–(\d+) of (\d+)`)
			for range 20 {
				all := footer.FindAllSubmatch(plain(s.raw.Bytes()[start:]), -1)
				if len(all) == 0 {
					break // everything fits: no footer
				}
				last := all[len(all)-1]
				if string(last[2]) == string(last[3]) {
					break
				}
				s.keys("pgdown")
				from, _ := strconv.Atoi(string(last[1]))
				to, _ := strconv.Atoi(string(last[2]))
				n, _ := strconv.Atoi(string(last[3]))
				s.waitFor("–" + strconv.Itoa(min(to+to-from+1, n)) + " of " + strconv.Itoa(n))
			}
			seen := plain(s.raw.Bytes()[start:])
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
