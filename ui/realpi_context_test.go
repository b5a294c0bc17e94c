package ui

import (
	"fmt"
	"path/filepath"
	"strings"
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

// pi's refusal of a prompt ("No API key found…", three paragraphs) is
// shown as its lines, never with \x0a in them.
func TestRealPiRefusalIsShownAsLines(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	t.Setenv("ANTHROPIC_API_KEY", "")
	r := newRealPiKitRig(t, 120, 36, argv[0], func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "unused"} })
	writeAt(t, filepath.Join(r.home, ".pi", "agent", "settings.json"), `{"defaultProvider":"anthropic","defaultModel":"claude-sonnet-4-5","defaultThinkingLevel":"off"}`)
	r.chat()
	r.say("hello")
	r.waitScreen("No API key found for anthropic.", "Use /login to log into a provider")
	if final := r.final(); strings.Contains(final, `\x0a`) || strings.Contains(final, "anthropic.Use") {
		t.Errorf("the refusal is not shown as its lines:\n%s", final)
	}
}

// /compact on a session pi finds too small says so once, plainly (it
// said "compaction failed: Compaction failed: Nothing to compact", and
// then pi's refusal of the command again).
func TestRealPiNothingToCompactIsSaidOnce(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	r := newRealPiKitRig(t, 120, 36, argv[0], func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "unused"} })
	r.chat()
	r.say("/compact")
	r.waitScreen("compaction failed: Nothing to compact (session too small)")
	final := r.final()
	if n := strings.Count(final, "Nothing to compact"); n != 1 || strings.Contains(final, "Compaction failed") || strings.Contains(final, "pi refused") {
		t.Errorf("said %d times:\n%s", n, final)
	}
}
