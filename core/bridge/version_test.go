package bridge

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// The welcomed peer's pi version is kept for the host to check; one that
// does not look like a version (control characters, too long) is none.
func TestHelloPiVersion(t *testing.T) {
	for _, c := range []struct{ sent, want string }{
		{"1.6.0", "1.6.0"},
		{"1.6.0-beta.1+b7", "1.6.0-beta.1+b7"},
		{"1.6\x1b[31m", ""},
		{strings.Repeat("1", 41), ""},
		{"", ""},
	} {
		s, _ := start(t, echoHost{})
		if s.PiVersion() != "" {
			t.Fatal("a version before any hello")
		}
		p := dial(t, s)
		p.send(t, map[string]any{"type": "hello", "token": token(s), "protocol": 1, "piVersion": c.sent})
		if m, err := p.read(); err != nil || m["type"] != "welcome" {
			t.Fatalf("hello: %v %v", m, err)
		}
		if got := s.PiVersion(); got != c.want {
			t.Errorf("hello with %q: PiVersion = %q, want %q", c.sent, got, c.want)
		}
	}
	// A refused hello (wrong token) leaves no version.
	s, _ := start(t, echoHost{})
	p := dial(t, s)
	p.send(t, map[string]any{"type": "hello", "token": "nope", "protocol": 1, "piVersion": "9.9.9"})
	p.read()
	if s.PiVersion() != "" {
		t.Errorf("a refused hello set the version %q", s.PiVersion())
	}
}

// The real pi's bridge says the version pi --version prints: the check
// that lets a kept version skip the ask (piengine's versions file).
func TestRealPiBridgeSaysPiVersion(t *testing.T) {
	pi := findPi(t)
	out, err := exec.Command(pi[0], append(pi[1:], "--version")...).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	root := project(t)
	model := fakemodel.New(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} })
	session := filepath.Join(t.TempDir(), "s.jsonl")
	h := NewDecisions(Deps{Root: root, SessionFile: session, Preflight: folderChain{root: root, trusted: true},
		System: func(context.Context) (string, error) { return "", nil }})
	defer h.Close()
	srv, err := Listen(t.TempDir(), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	runPi(t, pi, root, session, srv, model, "hi")
	if got := srv.PiVersion(); got != want {
		t.Errorf("the bridge said pi %q; pi --version says %q", got, want)
	}
}
