package ui

import (
	"testing"
)

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
