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
