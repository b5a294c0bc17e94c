package piengine

import (
	"strings"

	"github.com/pi-tui/pi-tui/internal/safetext"
)

// What pi says, said to the user: pi's errors keep their lines (pi's "No
// API key found…" is three paragraphs), with only the characters a
// terminal would act on shown as text; a model server pi could not reach
// is named, as the built-in engine names it.

// maxText bounds one of pi's messages as pi-tui passes it on.
const maxText = 4000

// piText is a message of pi's as pi-tui shows it: trimmed, CRLF as LF,
// cut at maxText bytes, and every control character but line feed and
// tab written out as text (safetext.Visible), so its lines are lines and
// nothing in it drives the terminal.
func piText(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if len(s) > maxText {
		cut := maxText
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return safetext.Visible(s)
}

func utf8Start(b byte) bool { return b&0xc0 != 0x80 }

// model is what pi-tui knows of the model pi runs (get_state), to name
// its server in an error.
type model struct {
	provider, baseURL string
}

// errorText is a model call's error as pi-tui says it: pi's words,
// except for a server pi could not reach ("Connection error.: connect
// ECONNREFUSED 127.0.0.1:9", the SDK's sentence and node's code glued
// together), which becomes the built-in engine's sentence naming the
// provider and its endpoint.
func (m model) errorText(msg string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(msg), "Connection error.")
	if !ok {
		return piText(msg)
	}
	cause := strings.TrimSpace(strings.TrimPrefix(rest, ":"))
	where := "the server"
	if m.baseURL != "" {
		where += " at " + m.baseURL
	}
	s := "cannot reach " + where
	if d := reachDetail(cause); d != "" {
		s += " (" + d + ")"
	}
	if m.provider != "" {
		s = m.provider + ": " + s
	}
	return piText(s)
}

// reachDetail says in words what node's error code says ("connect
// ECONNREFUSED 127.0.0.1:9", "getaddrinfo ENOTFOUND example.invalid"),
// or passes a cause it has no words for as it is.
func reachDetail(cause string) string {
	f := strings.Fields(cause)
	code, arg := "", ""
	for i, w := range f {
		if strings.HasPrefix(w, "E") && strings.ToUpper(w) == w && len(w) > 2 {
			code = w
			if i+1 < len(f) {
				arg = f[i+1]
			}
			break
		}
	}
	switch code {
	case "ECONNREFUSED":
		return "the connection was refused: is the server running?"
	case "ENOTFOUND":
		return "no host is named " + arg
	case "ECONNRESET":
		return "the connection was reset"
	case "ETIMEDOUT":
		return "no connection in time"
	case "EHOSTUNREACH", "ENETUNREACH":
		return "no route to it"
	}
	return cause
}
