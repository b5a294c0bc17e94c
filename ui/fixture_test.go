package ui

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/screentest"
	"github.com/pi-tui/pi-tui/store/storetest"
)

// updating reports whether -update was given (teatest defines the flag).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// fixture is a pi-tui home in a temp dir: HOME, an agent dir and a data
// dir, with a host over a real SQLite file.
type fixture struct {
	t    *testing.T
	home string
	host *host.Host
	env  map[string]string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pl := paths.Places{Home: home, AgentDir: filepath.Join(home, ".pi", "agent"), DataDir: filepath.Join(home, "data")}
	storetest.Seed(t, pl.DataDir)
	env := map[string]string{}
	h, err := host.Open(context.Background(), pl, host.Options{Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return &fixture{t: t, home: home, host: h, env: env}
}

func (f *fixture) dir(rel string) string {
	f.t.Helper()
	p := filepath.Join(f.home, rel)
	if err := os.MkdirAll(p, 0o755); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) write(rel, body string) string {
	f.t.Helper()
	p := filepath.Join(f.home, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join(f.home, rel))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(data)
}

func (f *fixture) add(rel, name string, trusted bool) {
	f.t.Helper()
	if _, _, err := f.host.Projects.Add(context.Background(), f.dir(rel), name, trusted); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) model() *Model {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	env := func(k string) string { return f.env[k] }
	return New(Options{Host: f.host, Renderer: r, Env: env})
}

// run starts the program at w×h.
func (f *fixture) run(w, h int) *session {
	return newSession(f.t, f.model(), w, h)
}

// session is a running program, driven through the harness the ui
// packages share (ui/internal/screentest).
type session struct {
	t  *testing.T
	tm *teatest.TestModel
	sc *screentest.Screen
	// raw is every byte the program wrote to the terminal so far, for
	// checking what reached it (an escape sequence must not).
	raw *bytes.Buffer
}

// newSession starts m at w×h; the program is quit when the test ends.
func newSession(t *testing.T, m tea.Model, w, h int) *session {
	t.Helper()
	sc := screentest.Start(t, m, w, h, screentest.Plain)
	return &session{t: t, tm: sc.TM, sc: sc, raw: &sc.Raw}
}

// waitFor waits until the program has drawn all of the strings.
func (s *session) waitFor(want ...string) {
	s.t.Helper()
	s.sc.WaitFor(want...)
}

// waitFrom is waitFor over the output from offset start of everything
// read so far (s.raw), so text that an earlier wait already read counts.
func (s *session) waitFrom(start int, want ...string) {
	s.t.Helper()
	s.sc.WaitFrom(start, want...)
}

// waitScreen waits until one frame shows all of want at once.
func (s *session) waitScreen(want ...string) {
	s.t.Helper()
	s.sc.WaitScreen(want...)
}

// waitAny waits until one of want appears in the output produced since
// the call, and returns it.
func (s *session) waitAny(want ...string) string {
	s.t.Helper()
	return s.sc.WaitAny(want...)
}

// keys presses each key, by name ("enter", "ctrl+s") or as typed runes.
func (s *session) keys(ks ...string) { s.sc.Keys(ks...) }

// final quits and returns the last frame as View() draws it; raw then
// holds everything the program wrote.
func (s *session) final() string {
	s.t.Helper()
	return s.sc.Final()
}

func plain(b []byte) []byte { return screentest.Plain(b) }

func golden(t *testing.T, name, got string) {
	t.Helper()
	got = string(plain([]byte(got)))
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -run %s -update to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test ./ui -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func itoa(n int) string {
	var b [8]byte
	i := len(b)
	for n > 0 || i == len(b) {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// The screens a new user tried pi-tui at (issue 24).
var trialSizes = []struct{ w, h int }{{80, 24}, {120, 40}}

// squeezed is text without white space: a sentence read across the
// lines it wraps to, wherever they break (a path may break after a
// slash, with the line's padding after it).
func squeezed(s string) string { return strings.Join(strings.Fields(s), "") }

// waitWhole waits until one frame shows each of want whole, read across
// line breaks.
func (s *session) waitWhole(want ...string) string {
	s.t.Helper()
	return s.sc.WaitFrame(func(frame string) bool {
		seen := squeezed(frame)
		for _, w := range want {
			if !strings.Contains(seen, squeezed(w)) {
				return false
			}
		}
		return true
	})
}

// assertFrame fails when a frame has more lines than the screen or a
// line wider than it.
func assertFrame(t *testing.T, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) > h {
		t.Errorf("the frame has %d lines on a screen of %d:\n%s", len(lines), h, frame)
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("a line is %d cells on a screen of %d: %q", ansi.StringWidth(l), w, l)
		}
	}
}

// assertWordsWhole fails when a word of sentence (a run without spaces)
// is not whole on one line of frame: a sentence breaks only at spaces
// ("auto-" / "edits" broke at the hyphen).
func assertWordsWhole(t *testing.T, frame, sentence string) {
	t.Helper()
	words := map[string]bool{}
	for _, l := range strings.Split(frame, "\n") {
		for _, w := range strings.Fields(l) {
			words[w] = true
		}
	}
	for _, w := range strings.Fields(sentence) {
		if !words[w] {
			t.Errorf("%q is not whole on a line:\n%s", w, frame)
		}
	}
}

// The sizes the places below were found cut at: the smallest screen
// pi-tui draws on is 60 columns wide.
var narrowSizes = []struct{ w, h int }{{80, 24}, {60, 20}}

// waitKeys is waitWhole for hint lines, which break between two keys,
// where their " · " goes: the dots are not compared.
func (s *session) waitKeys(want ...string) string {
	s.t.Helper()
	undot := func(x string) string { return strings.ReplaceAll(squeezed(x), "·", "") }
	return s.sc.WaitFrame(func(frame string) bool {
		seen := undot(frame)
		for _, w := range want {
			if !strings.Contains(seen, undot(w)) {
				return false
			}
		}
		return true
	})
}

// prose is a frame as a person reads it: wrapped sentences joined.
func prose(frame string) string { return string(screentest.Prose([]byte(frame))) }

// lastLine is a frame's bottom line: the status bar.
func lastLine(frame string) string {
	lines := strings.Split(strings.TrimRight(frame, "\n"), "\n")
	return lines[len(lines)-1]
}

// offered names the tools a request offered the model.
func offered(req fakemodel.Request) []string {
	var out []string
	tools, _ := req.Body["tools"].([]any)
	for _, t := range tools {
		fn, _ := t.(map[string]any)["function"].(map[string]any)
		name, _ := fn["name"].(string)
		out = append(out, name)
	}
	return out
}

func echo(n int, req fakemodel.Request) fakemodel.Reply {
	return fakemodel.Reply{Text: "answer to " + req.LastUser}
}

func echoModel(n int, req fakemodel.Request) fakemodel.Reply {
	return fakemodel.Reply{Text: fmt.Sprintf("got %d lines", strings.Count(req.LastUser, "\n")+1)}
}

func writeAt(t *testing.T, path, body string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rawEscapes lists the escape sequences from the model that reached the
// terminal.
func rawEscapes(raw []byte) []string {
	var found []string
	for _, seq := range []string{"\x1b[8m", "\x1b]52", "\x1b]0;"} {
		if bytes.Contains(raw, []byte(seq)) {
			found = append(found, seq)
		}
	}
	return found
}

// deepProject is a project whose folder is longer than any screen line.
const deepProject = "src/very/deeply/nested/folder/of/someone/who/keeps/the/projects/in/the/shop-backend-service"
