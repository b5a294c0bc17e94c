package ui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// The Providers screen, reached from Settings (p) and the palette, with
// the real pi: it lists how each provider is reached, runs pi's logout
// through the program's Exec and comes back read afresh, and adds an
// endpoint after asking it for its models.
func TestProvidersScreen(t *testing.T) {
	t.Parallel()
	f, _ := realPiFixture(t)
	f.write(".pi/agent/auth.json", `{"groq":{"type":"api_key","key":"gsk-SECRET"},"github-copilot":{"type":"oauth","access":"A-SECRET","refresh":"R","expires":4102444800000}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"data":[{"id":"lab-small"},{"id":"lab-large"}]}`))
	}))
	defer srv.Close()

	var ran []string
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	m := New(Options{Host: f.host, Renderer: r, Env: func(k string) string { return f.env[k] },
		Exec: func(cmd *exec.Cmd, done func(error) tea.Msg) tea.Cmd {
			ran = cmd.Args[len(cmd.Args)-3:]
			cmd.Env = append(cmd.Env, "HOME="+f.home)
			return func() tea.Msg { return done(cmd.Run()) }
		}})
	s := newSession(t, m, 80, 24)
	s.waitFor("Projects")
	s.keys("3")
	s.waitFor("› Global instructions")
	s.keys("p")
	s.waitFor("github-copilot", "account login, token until 2100-01-01", "groq", "key in auth.json")
	s.keys("j", "o") // groq, the second ready one: log out
	s.waitFor("logged out of groq")
	s.waitFor("groq               not ready")
	if strings.Join(ran, " ") != "auth logout groq" {
		t.Errorf("pi ran as %q", ran)
	}
	if data := f.read(".pi/agent/auth.json"); strings.Contains(data, "gsk-SECRET") {
		t.Errorf("pi's logout left the key:\n%s", data)
	}

	// Add an endpoint: name, URL, no key; the confirmation shows what it
	// lists.
	s.keys("a")
	s.waitFor("Add an endpoint: name")
	s.keys("lab")
	s.keys("enter")
	s.waitFor("Add lab: base URL")
	s.keys(srv.URL)
	s.keys("enter")
	s.waitFor("Add lab: key")
	s.keys("enter")
	s.waitFor("lists 2 models: lab-small", "Add lab to models.json?")
	s.keys("y")
	s.waitFor("added lab to")
	s.waitFor("lab ")
	view := s.final()
	if strings.Contains(view, "SECRET") {
		t.Errorf("a secret is on the screen:\n%s", view)
	}
	if data := f.read(".pi/agent/models.json"); !strings.Contains(data, `"lab-large"`) || !strings.Contains(data, srv.URL+"/v1") {
		t.Errorf("models.json:\n%s", data)
	}
}

// Without pi the screen says what to install, and the palette opens it.
func TestProvidersScreenWithoutPi(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.env["PATH"] = filepath.Join(f.home, "empty")
	s := f.run(80, 24)
	s.waitFor("Projects")
	s.keys("ctrl+k")
	s.keys("Providers")
	s.keys("enter")
	s.waitFor("pi is not usable, so there is no login here", "install pi", "anthropic")
	s.keys("enter")
	s.waitFor("logging in needs pi")
	s.final()
}

// A pi that is found but does not answer pi-tui's questions (here one
// that prints its version whatever it is asked) leaves its providers
// out: the screen says so, and why, instead of a shorter list alone.
func TestProvidersScreenSaysWhenPiDoesNotAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.env["PI_TUI_PI"] = fakePi(t, f.dir("bin"), "1.6.0")
	s := f.run(100, 30)
	s.waitFor("Projects")
	s.keys("ctrl+k", "Providers", "enter")
	s.waitScreen("pi's own view is missing: pi auth login did not list its providers", "anthropic")
	s.final()
}
