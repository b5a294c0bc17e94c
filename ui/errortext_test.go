package ui

import (
	"os"
	"strings"
	"testing"
)

// An error that names a file of the repository (here the project's own
// folder, whose name carries a terminal title sequence) is shown with its
// control characters as text, never sent to the terminal.
func TestLoadErrorShowsControlsAsText(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := "p\x1b]2;pwned\x07"
	if err := os.MkdirAll(f.dir(dir+"/AGENTS.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.add(dir, "proj", true)
	s := f.run(100, 24)
	s.waitFor("proj")
	s.keys("enter", "a")
	frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Cannot edit") })
	if !strings.Contains(frame, `\x1b]2;pwned\x07`) || strings.Contains(frame, "\x1b]2;") {
		t.Errorf("the error's controls reach the terminal:\n%q", frame)
	}
	s.final()
}
