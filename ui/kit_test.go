package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/store/storetest"
	"github.com/pi-tui/pi-tui/ui/common"
)

// kitRig drives pi-tui through NewKit, as a user's own teatest script
// would: real store, real files, a scripted model server.
type kitRig struct {
	*session
	home  string
	fake  *fakemodel.Server
	m     *Model
	clock *fakeClock
}

// fakeClock is the UI's clock in kit tests: it stands still until a test
// moves it, so an approval's quiet period ends exactly when the test says.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// wait moves the clock on by d and has waiting dialogs look at it.
func (r *kitRig) wait(d time.Duration) {
	r.clock.advance(d)
	r.tm.Send(common.QuietMsg{})
}

// abortAll aborts the project's running turns, as another program or a
// closed terminal would.
func (r *kitRig) abortAll() {
	for _, id := range r.sessionIDs() {
		r.m.opts.Host.Runtimes.Abort(id)
	}
}

// settle lets the keyboard rest past the quiet period and waits until the
// open approval dialog says it takes keys.
func (r *kitRig) settle() {
	r.t.Helper()
	r.wait(common.QuietPeriod)
	r.waitFor("▶ ready")
}

func (r *kitRig) sessionIDs() []string {
	r.t.Helper()
	ps, err := r.m.opts.Host.Projects.List(context.Background(), true)
	if err != nil || len(ps) == 0 {
		r.t.Fatalf("projects: %v", err)
	}
	list, err := r.m.opts.Host.Sessions.List(context.Background(), ps[0].ID)
	if err != nil {
		r.t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids
}

func newKitRig(t *testing.T, w, h int, script fakemodel.Script, trusted bool) *kitRig {
	t.Helper()
	return newKitRigWith(t, w, h, script, trusted, provider.Options{MaxRetries: -1})
}

// newKitRigWith is newKitRig with the model client's options (retries).
func newKitRigWith(t *testing.T, w, h int, script fakemodel.Script, trusted bool, opts provider.Options) *kitRig {
	t.Helper()
	home, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(home, "proj")
	for rel, body := range map[string]string{
		"AGENTS.md":          "Root rules.",
		"pkg/api/AGENTS.md":  "API rules: wrap errors.",
		"pkg/api/handler.go": "package api\n",
		"notes.txt":          "hello\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755)
		os.WriteFile(filepath.Join(root, rel), []byte(body), 0o644)
	}
	fake := fakemodel.New(t, script)
	client, err := provider.New(pisettings.ProviderConfig{Name: "fake", API: "openai-completions", BaseURL: fake.URL, APIKey: "k"},
		func(string) string { return "" }, opts)
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	storetest.Seed(t, filepath.Join(home, "data"))
	m, done, err := NewKit(context.Background(), KitOptions{DataDir: filepath.Join(home, "data"), AgentDir: filepath.Join(home, ".pi", "agent"),
		Home: home, Client: client, Model: provider.Model{Provider: "fake", ID: "m1", ContextWindow: 100000}, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { done() })
	if _, _, err := m.opts.Host.Projects.Add(context.Background(), root, "proj", trusted); err != nil {
		t.Fatal(err)
	}
	return &kitRig{session: newSession(t, m, w, h), home: home, fake: fake, m: m, clock: clock}
}

// chat opens the project's first session from the row menu.
func (r *kitRig) chat() {
	r.waitFor("proj")
	r.keys("enter", "o")
	r.waitFor("No sessions yet")
	r.keys("n")
	// The view launches the session's runtime in the background (so the
	// first prompt does not wait for it); the tests start once it has.
	r.waitFor("Type a message", "runtime launched: new")
}

func (r *kitRig) say(text string) {
	r.tm.Type(text)
	r.keys("enter")
}

// command sends a slash command that works only between turns (see
// untilIdle); want is what it draws once it runs.
func (r *kitRig) command(cmd string, want ...string) {
	r.t.Helper()
	r.untilIdle(func() { r.say(cmd) }, "waits until the agent is done", want...)
}

// sessions goes from the chat to its session list with ctrl+l, which
// works only between turns (see untilIdle); want are more texts the list
// shows.
func (r *kitRig) sessions(want ...string) {
	r.t.Helper()
	r.untilIdle(func() { r.keys("ctrl+l") }, "the agent is working; press esc", append([]string{"Sessions · proj"}, want...)...)
}

// untilIdle does act, which the chat refuses while a turn runs, saying
// busy, until it draws want. The answer's text arrives a moment before
// the turn's end, and the end itself draws nothing, so an act right after
// the answer may be refused; it is done again once that refusal is on
// screen, until it works.
//
// A second refusal would draw the very notice the first one left, which
// the terminal is not sent again: between two tries another notice takes
// its place (an unknown command, which comes back to the input and is
// cleared with ctrl+u), so that each refusal is new output.
func (r *kitRig) untilIdle(act func(), busy string, want ...string) {
	r.t.Helper()
	const other = "/no-such-command"
	for range 100 {
		start := r.raw.Len()
		act()
		if r.waitAny(want[0], busy) == want[0] {
			r.waitFrom(start, want...)
			return
		}
		r.say(other)
		r.waitAny("unknown command " + other)
		r.keys("ctrl+u")
	}
	r.t.Fatalf("refused 100 times (%s): the turn never ended", busy)
}

// TestKitExample is the example for users: drive pi-tui like a person.
func TestKitExample(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 100, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "Hello from **the model**."}
	}, true)
	r.chat()
	r.say("hi")
	// Wait for the turn's end, not only the answer: the status line
	// changes a moment after the text. (It says "runtime idle" at launch
	// too; the token count appears only with the turn's end.)
	r.waitFor("Hello from", "the model", "tokens ")
	final := r.final()
	// The runtime was launched when the session opened; the prompt reused it.
	if !strings.Contains(final, "runtime idle") || !strings.Contains(final, "runtime reused") {
		t.Errorf("status:\n%s", final)
	}
}

func TestSessionReadShowsPreflightAndDelivery(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 140, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult == "" {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "r1", Name: "read", Args: map[string]string{"path": "pkg/api/handler.go"}}}}
		}
		return fakemodel.Reply{Text: "It is empty."}
	}, true)
	r.chat()
	r.say("what is in the handler?")
	r.waitFor("It is empty.")
	final := r.final()
	for _, want := range []string{"✓ read pkg/api/handler.go", "preflight", "miss", "+pkg/api/AGENTS.md"} {
		if !strings.Contains(final, want) {
			t.Errorf("transcript lacks %q:\n%s", want, final)
		}
	}
}

func TestSessionApprovalGrantedAndDenied(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 100, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult != "" {
			return fakemodel.Reply{Text: "result: " + req.LastToolResult}
		}
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w", Name: "write", Args: map[string]string{"path": "notes.txt", "content": "bye\n"}}}}
	}, true)
	r.chat()
	r.say("change it")
	r.waitFor("Allow write?", "- hello", "+ bye", "allow once")
	r.settle()
	r.keys("esc") // closing the dialog denies: nothing waits on an answer
	r.waitFor("denied")
	if data, _ := os.ReadFile(filepath.Join(r.home, "proj", "notes.txt")); string(data) != "hello\n" {
		t.Fatalf("a denied write happened: %q", data)
	}
	r.say("again")
	r.waitFor("Allow write?")
	r.settle()
	r.keys("y")
	r.waitFor("result: Wrote")
	if data, _ := os.ReadFile(filepath.Join(r.home, "proj", "notes.txt")); string(data) != "bye\n" {
		t.Errorf("an allowed write did not happen: %q", data)
	}
	r.final()
}

func TestSessionAbortQueueTreeAndContext(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	r := newKitRig(t, 120, 36, func(n int, req fakemodel.Request) fakemodel.Reply {
		switch {
		case strings.Contains(req.LastUser, "slow"):
			return fakemodel.Reply{Text: "partial words then more", Hold: hold}
		}
		return fakemodel.Reply{Text: "answer to " + req.LastUser}
	}, true)
	defer close(hold)
	r.chat()
	r.say("slow one")
	r.waitFor("partial")
	// Typed while the agent works: queued, sent after.
	r.say("queued one")
	r.waitFor("queued: sent when the agent is done")
	r.keys("esc") // abort: the queue is dropped with it
	r.waitFor("partial: the answer was cut off or aborted")
	// The queued message is back in the input, the cursor after it.
	r.say(" after abort")
	r.waitFor("answer to queued one after abort")
	// A message typed while the agent works is sent when it is done.
	r.say("first")
	r.say("second")
	r.waitFor("answer to second")
	// /tree: branch before "first"; the message comes back to edit.
	r.command("/tree", "Tree · every branch", "you: first")
	r.keys("up", "up", "up", "enter") // from the leaf (answer to second) to "first"
	r.waitFor("branched")
	r.keys("enter")
	r.waitFor("answer to first")
	// /context shows the system prompt's sections.
	r.command("/context", "System prompt for", "project instructions", "AGENTS.md", "project memory", "environment")
	r.keys("esc")
	r.final()
}

func TestSessionGoldens(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(itoa(size.w)+"x"+itoa(size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, func(n int, req fakemodel.Request) fakemodel.Reply {
				if req.LastToolResult == "" {
					return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "r1", Name: "read", Args: map[string]string{"path": "pkg/api/handler.go"}}}}
				}
				return fakemodel.Reply{Text: "The handler is **empty**."}
			}, true)
			r.chat()
			r.say("what is in the handler?")
			r.waitFor("empty", "tokens 200 in") // usage arrives with agent_end
			r.tm.Send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			golden(t, "session-"+itoa(size.w)+"x"+itoa(size.h), stableSession(r.final()))
		})
	}
}

// stableSession masks what differs between runs: timings. A time's width
// varies (0.2ms, 12.5ms) and with it the padding of its line and where the
// line wraps, so trailing spaces go too.
func stableSession(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, strings.TrimRight(maskNumbersBefore(l, "ms"), " "))
	}
	return strings.Join(out, "\n")
}

// maskNumbersBefore replaces a number directly followed by unit with #.
func maskNumbersBefore(l, unit string) string {
	var b strings.Builder
	for i := 0; i < len(l); {
		j := i
		for j < len(l) && (l[j] >= '0' && l[j] <= '9' || l[j] == '.') {
			j++
		}
		if j > i && strings.HasPrefix(l[j:], unit) {
			b.WriteString("#")
			i = j
			continue
		}
		if j > i {
			b.WriteString(l[i:j])
			i = j
			continue
		}
		b.WriteByte(l[i])
		i++
	}
	return b.String()
}

var _ = time.Second
