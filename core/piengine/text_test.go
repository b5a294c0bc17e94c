package piengine

import (
	"slices"
	"strings"
	"testing"
)

// pi's "No API key found…" is three paragraphs: they stay lines (they
// were one line with \x0a in it), while an escape sequence in a message
// is still shown, not sent.
func TestPiTextKeepsLinesAndShowsEscapes(t *testing.T) {
	got := piText("No API key found for anthropic.\r\n\r\nUse /login to log in.\n  /docs/providers.md\x1b]0;x\x07\n")
	want := "No API key found for anthropic.\n\nUse /login to log in.\n  /docs/providers.md\\x1b]0;x\\x07"
	if got != want {
		t.Errorf("piText = %q, want %q", got, want)
	}
}

// A server pi could not reach is named with its endpoint, in a sentence
// (pi said "Connection error.: connect ECONNREFUSED 127.0.0.1:18559").
func TestErrorTextNamesTheEndpoint(t *testing.T) {
	m := model{provider: "fake", baseURL: "http://127.0.0.1:18559/v1"}
	for in, want := range map[string]string{
		"Connection error.: connect ECONNREFUSED 127.0.0.1:18559": "fake: cannot reach the server at http://127.0.0.1:18559/v1 (the connection was refused: is the server running?)",
		"Connection error.: getaddrinfo ENOTFOUND llm.invalid":    "fake: cannot reach the server at http://127.0.0.1:18559/v1 (no host is named llm.invalid)",
		"Connection error.": "fake: cannot reach the server at http://127.0.0.1:18559/v1",
		"429 rate limited":  "429 rate limited",
	} {
		if got := m.errorText(in); got != want {
			t.Errorf("errorText(%q) = %q, want %q", in, got, want)
		}
	}
}

// pi's warnings reach the user as pi prints them: each "Warning: " line
// with the lines indented under it, two in one write both said; other
// stderr lines are not warnings.
func TestTailSaysPisWarnings(t *testing.T) {
	var got []string
	tl := &tail{warn: func(s string) { got = append(got, s) }}
	tl.Write([]byte("Warning: Model \"nomodel\" not found for provider \"fake\". Using custom model id.\n"))
	tl.Write([]byte("Warning: No models available. See:\n  /docs/providers.md\n  /docs/models.md\nWarning: second\nloading extensions\n"))
	tl.Write([]byte("  an indented line that follows no warning\n"))
	want := []string{"Model \"nomodel\" not found for provider \"fake\". Using custom model id.",
		"No models available. See:\n  /docs/providers.md\n  /docs/models.md", "second"}
	if !slices.Equal(got, want) {
		t.Errorf("warnings = %q, want %q", got, want)
	}
	if l := tl.Lines(); len(l) != 7 || !strings.HasPrefix(l[0], "Warning: Model") {
		t.Errorf("the kept lines = %q", l)
	}
}
