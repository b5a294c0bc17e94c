package main

import (
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// sessions list titles a session by what the user typed, as the sessions
// list and the palette do, never by the files attached before it.
func TestSessionsListTitlesByTheTypedPrompt(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "Done."} })
	msg := "<file name=\"/src/a.go\">\npackage a\n</file>\nexplain the package"
	c.ok("prompt", "--project", "mono", msg)
	out := c.ok("sessions", "list", "mono")
	if !strings.Contains(out, "explain the package") || strings.Contains(out, "<file") {
		t.Errorf("sessions list:\n%s\nwant the typed prompt as the title", out)
	}
}
