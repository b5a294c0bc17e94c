package ui

import (
	"fmt"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// On the real pi the line above the input counts the whole session, as
// pi's footer does: after two turns it shows both turns' tokens (it
// showed the last turn's alone), with the context window's use to one
// decimal. /context then shows the prompt pi sent, pi's part and
// pi-tui's, and the tools the request declared, not the built-in
// engine's prompt.
func TestRealPiTokenLineAndContextArePis(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	r := newRealPiKitRig(t, 140, 36, argv[0], func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: fmt.Sprintf("answer number %d", n+1)}
	})
	r.chat()
	r.say("first")
	r.waitFor("answer number 1", "tokens 100 in / 20 out")
	r.say("second")
	r.waitFor("answer number 2", "tokens 200 in / 40 out", "context 0.1% of 200k")
	r.command("/context", "as pi sent it at", "pi's own prompt", "pi-tui's sections", "Tools (", "read, bash, edit, write")
	r.keys("v")
	r.waitFor("You are a coding assistant running inside pi")
	r.final()
}
