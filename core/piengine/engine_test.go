package piengine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// A prompt's run in pi arrives as pi-tui's events: reasoning, text, the
// tool call with the host's record, the end with the final text and
// usage; the bridge was asked for the system text before the run and
// gated the tool; pi's session file reads in pi-tui.
func TestPromptPublishesPiEventsAsPiTuis(t *testing.T) {
	host := newHost(t)
	script := &fakepi.Script{Replies: []fakepi.Reply{
		{Thinking: "let me look", Text: "I will read it.", Tools: []fakepi.Tool{{ID: "c1", Name: "read", Args: map[string]any{"path": "hello.txt"}}}},
		{Text: "It says hello."},
	}}
	r := launch(t, script, nil, withHost(host))
	if err := os.WriteFile(filepath.Join(r.root, "hello.txt"), []byte("hello from the file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := r.e.Info(); got != (engine.Info{Name: "pi", Version: "1.6.0"}) {
		t.Errorf("Info = %+v", got)
	}
	if w := r.e.ContextWindow(); w != 128000 {
		t.Errorf("ContextWindow = %d, want get_state's 128000", w)
	}
	res, err := r.e.Prompt(context.Background(), "what is in hello.txt?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "It says hello." || res.Aborted {
		t.Errorf("result = %+v", res)
	}
	if res.Usage.InputTokens != 20 || res.Usage.OutputTokens != 6 {
		t.Errorf("usage of two messages = %+v", res.Usage)
	}
	evs := r.rec.all()
	var text strings.Builder
	for _, d := range ofType[events.TextDelta](evs) {
		text.WriteString(d.Text)
	}
	if text.String() != "I will read it.It says hello." {
		t.Errorf("streamed %q", text.String())
	}
	if th := ofType[events.ThinkingDelta](evs); len(th) != 1 || th[0].Text != "let me look" {
		t.Errorf("thinking = %+v", th)
	}
	if k := kinds(evs); !strings.HasPrefix(k, "AgentStarted ") || !strings.HasSuffix(k, " AgentEnded") {
		t.Errorf("events = %s", k)
	}
	ends := ofType[events.MessageEnded](evs)
	if len(ends) != 2 || ends[0].StopReason != provider.StopToolUse || ends[1].StopReason != provider.StopEnd || ends[1].Text != "It says hello." {
		t.Errorf("message ends = %+v", ends)
	}
	ts := ofType[events.ToolStarted](evs)
	te := ofType[events.ToolEnded](evs)
	if len(ts) != 1 || ts[0].ToolCallID != "c1" || ts[0].ToolName != "read" || !strings.Contains(string(ts[0].Args), "hello.txt") {
		t.Fatalf("tool started = %+v", ts)
	}
	if len(te) != 1 || te[0].Result != "hello from the file\n<delivered/>" || te[0].IsError || te[0].Path != "file-of-c1" ||
		te[0].Preflight == nil || te[0].Preflight.Cache != "miss" || te[0].Delivery == nil {
		t.Errorf("tool ended = %+v", te)
	}
	end := ofType[events.AgentEnded](evs)
	if len(end) != 1 || end[0].Text != "It says hello." || end[0].StopReason != provider.StopEnd || end[0].Usage == nil || end[0].Usage.InputTokens != 20 {
		t.Errorf("agent ended = %+v", end)
	}
	if got := host.calls(); !slices.Equal(got, []string{"trust", "system", "tool_call", "tool_result"}) {
		t.Errorf("bridge methods = %v", got)
	}
	if st := r.e.State(); st.Busy || st.Usage.InputTokens != 20 {
		t.Errorf("state = %+v", st)
	}
	// pi-tui reads what pi wrote, the bridge's entry included.
	s, err := pisession.Open(context.Background(), r.file, pisession.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var types []string
	for _, e := range s.Path() {
		types = append(types, e.Type)
	}
	if !slices.Contains(types, "custom") || len(types) < 5 {
		t.Errorf("session path = %v", types)
	}
}

// A denied tool call comes back as pi's error result; the turn goes on.
func TestBridgeDeniesBash(t *testing.T) {
	host := newHost(t)
	script := &fakepi.Script{Replies: []fakepi.Reply{
		{Tools: []fakepi.Tool{{ID: "b1", Name: "bash", Args: map[string]any{"command": "touch pwned"}}}},
		{Text: "denied, fine"},
	}}
	r := launch(t, script, nil, withHost(host))
	if _, err := r.e.Prompt(context.Background(), "run it"); err != nil {
		t.Fatal(err)
	}
	te := ofType[events.ToolEnded](r.rec.all())
	if len(te) != 1 || !te[0].IsError || !strings.Contains(te[0].Result, "The user denied this bash call.") {
		t.Errorf("tool ended = %+v", te)
	}
	if _, err := os.Stat(filepath.Join(r.root, "pwned")); err == nil {
		t.Error("the denied command ran")
	}
}

// Steering and a follow-up reach the running turn, in order; with no
// turn running they say ErrIdle.
func TestSteerAndFollowUp(t *testing.T) {
	script := &fakepi.Script{Replies: []fakepi.Reply{
		{Text: "one two three", Hold: 2},
		{Text: "steered answer"},
		{Text: "follow-up answer"},
	}}
	r := launch(t, script, nil)
	if err := r.e.Steer("too early"); !errors.Is(err, engine.ErrIdle) {
		t.Errorf("Steer while idle: %v", err)
	}
	done := r.promptAsync(context.Background(), "go")
	if !r.e.State().Busy {
		t.Error("not busy mid-turn")
	}
	if _, err := r.e.Prompt(context.Background(), "second"); !errors.Is(err, engine.ErrBusy) {
		t.Errorf("second prompt: %v", err)
	}
	if err := r.e.Steer("change course"); err != nil {
		t.Fatal(err)
	}
	if err := r.e.FollowUp("then this"); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.Text != "follow-up answer" {
		t.Errorf("final text %q", res.Text)
	}
	qs := ofType[events.QueueChanged](r.rec.all())
	if len(qs) < 2 || !slices.Equal(qs[1].Steering, []string{"change course"}) || !slices.Equal(qs[1].FollowUp, []string{"then this"}) {
		t.Errorf("queue updates = %+v", qs)
	}
	if n := len(ofType[events.AgentEnded](r.rec.all())); n != 1 {
		t.Errorf("%d AgentEnded for one prompt", n)
	}
}

// Abort stops the turn; what arrived stays, and the queued follow-up
// comes back unsent instead of running.
func TestAbortKeepsWhatArrived(t *testing.T) {
	script := &fakepi.Script{Replies: []fakepi.Reply{{Text: "partial answer never finished", HoldAbort: true}, {Text: "must not run"}}}
	r := launch(t, script, nil)
	done := r.promptAsync(context.Background(), "go")
	if err := r.e.FollowUp("later"); err != nil {
		t.Fatal(err)
	}
	r.rec.waitFor(t, "queued follow-up", func(e events.Event) bool { q, ok := e.(events.QueueChanged); return ok && len(q.FollowUp) == 1 })
	r.e.Abort()
	res := <-done
	if !res.Aborted || !slices.Equal(res.Unsent, []string{"later"}) {
		t.Errorf("result = %+v", res)
	}
	end := ofType[events.AgentEnded](r.rec.all())
	if len(end) != 1 || end[0].StopReason != provider.StopAborted {
		t.Errorf("agent ended = %+v", end)
	}
	if got := ofType[events.TextDelta](r.rec.all()); len(got) == 0 || got[0].Text != "partial " {
		t.Errorf("deltas = %+v", got)
	}
	// The engine is usable again.
	if _, err := r.e.Prompt(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
}

// A cancelled context aborts the prompt as Abort does.
func TestPromptContextCancelAborts(t *testing.T) {
	script := &fakepi.Script{Replies: []fakepi.Reply{{Text: "a b c", HoldAbort: true}}}
	r := launch(t, script, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := r.promptAsync(ctx, "go")
	cancel()
	if res := <-done; !res.Aborted {
		t.Errorf("result = %+v", res)
	}
}

// pi dying mid-turn: the prompt's error carries pi's status and last
// stderr lines in one message, what arrived stays published, the run
// ends once, and the engine is dead.
func TestCrashMidTurn(t *testing.T) {
	script := &fakepi.Script{Replies: []fakepi.Reply{{Text: "one two three four five six seven eight"}}}
	r := launch(t, script, []string{"FAKEPI_DIE_AFTER=9"})
	_, err := r.e.Prompt(context.Background(), "go")
	if !errors.Is(err, ErrExited) {
		t.Fatalf("err = %v", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "pi exited (status 2)") || !strings.Contains(msg, "fakepi: something went wrong") || !strings.Contains(msg, "crashing after 9 events") || strings.Contains(msg, "\n") {
		t.Errorf("error = %q", msg)
	}
	evs := r.rec.all()
	if len(ofType[events.TextDelta](evs)) == 0 {
		t.Error("the deltas that arrived were lost")
	}
	me := ofType[events.MessageEnded](evs)
	if len(me) != 1 || me[0].StopReason != provider.StopError || me[0].Text == "" || me[0].Error != msg {
		t.Errorf("message ended = %+v", me)
	}
	end := ofType[events.AgentEnded](evs)
	if len(end) != 1 || end[0].Error != msg || end[0].StopReason != provider.StopError {
		t.Errorf("agent ended = %+v", end)
	}
	if !r.e.Dead() {
		t.Error("a crashed engine says it is alive")
	}
	if _, err := r.e.Prompt(context.Background(), "again"); !errors.Is(err, ErrExited) {
		t.Errorf("prompt to a dead engine: %v", err)
	}
	if _, err := r.e.Call(context.Background(), "get_state", nil); !errors.Is(err, ErrExited) {
		t.Errorf("call to a dead engine: %v", err)
	}
}

// A pi that dies at start is one error with its stderr.
func TestDieAtStart(t *testing.T) {
	cfg := Config{Pi: Pi{Path: fakeBin, Version: "1.6.0"}, Root: t.TempDir(), ExtraEnv: []string{"FAKEPI_DIE_AT_START=Error: Cannot find module 'x'"}}
	_, err := New(context.Background(), cfg)
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "pi exited (status 3)") || !strings.Contains(err.Error(), "Cannot find module 'x'") {
		t.Errorf("err = %v", err)
	}
}

// A pi that never answers fails the launch after StartTimeout.
func TestSilentPiFailsLaunch(t *testing.T) {
	cfg := Config{Pi: Pi{Path: fakeBin, Version: "1.6.0"}, Root: t.TempDir(), ExtraEnv: []string{"FAKEPI_SILENT=1"}, StartTimeout: 300e6, TermGrace: 1e6, KillGrace: 1e6}
	_, err := New(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("err = %v", err)
	}
}

// A line over the limit and a line that is not JSON are reported as
// notices; the prompt completes.
func TestHugeAndGarbageLines(t *testing.T) {
	r := launch(t, &fakepi.Script{Replies: []fakepi.Reply{{Text: "fine"}}},
		[]string{"FAKEPI_HUGE=200000", "FAKEPI_GARBAGE=not json at all {"}, func(c *Config) { c.MaxLine = 64 << 10 })
	res, err := r.e.Prompt(context.Background(), "go")
	if err != nil || res.Text != "fine" {
		t.Fatalf("%+v %v", res, err)
	}
	var got []string
	for _, n := range ofType[events.Notice](r.rec.all()) {
		got = append(got, n.Text)
	}
	if len(got) != 2 || !strings.Contains(got[0], "over the 65536-byte limit") || !strings.Contains(got[1], `"not json at all {"`) {
		t.Errorf("notices = %q", got)
	}
}

// Extension dialogs go to the hook and its answer back to pi; without a
// hook they are cancelled and the user is told; notify, setStatus and
// extension_error become events.
func TestExtensionUI(t *testing.T) {
	script := &fakepi.Script{Replies: []fakepi.Reply{{Text: "asked", Notify: "careful", ExtensionError: "boom",
		UI: []fakepi.UI{{Method: "confirm", Title: "Allow?"}, {Method: "select", Title: "Pick", Options: []string{"a", "b"}}}}}}
	var seen []UIRequest
	r := launch(t, script, nil, func(c *Config) {
		c.ExtensionUI = func(ctx context.Context, req UIRequest) UIResponse {
			seen = append(seen, req)
			if req.Method == "confirm" {
				return UIResponse{Confirmed: true}
			}
			return UIResponse{Value: req.Options[1]}
		}
	})
	res, err := r.e.Prompt(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "asked [ui:confirmed=true] [ui:value=b]" {
		t.Errorf("text = %q", res.Text)
	}
	if len(seen) != 2 || seen[0].Title != "Allow?" || seen[0].Message != "Really?" {
		t.Errorf("requests = %+v", seen)
	}
	evs := r.rec.all()
	ns := ofType[events.Notice](evs)
	if len(ns) != 2 || ns[0].Text != "careful" || ns[0].Level != "warning" || ns[1].Level != "error" || !strings.Contains(ns[1].Text, "boom") || ns[1].Source != "/ext/fake.ts" {
		t.Errorf("notices = %+v", ns)
	}
	if st := ofType[events.ExtensionStatus](evs); len(st) != 1 || st[0].Method != "setStatus" || st[0].Key != "fake" || st[0].Text != "careful" {
		t.Errorf("status = %+v", st)
	}

	r2 := launch(t, &fakepi.Script{Replies: []fakepi.Reply{{Text: "asked", UI: []fakepi.UI{{Method: "input", Title: "Name?"}}}}}, nil)
	res, err = r2.e.Prompt(context.Background(), "go")
	if err != nil || res.Text != "asked [ui:cancelled]" {
		t.Errorf("without a UI: %q %v", res.Text, err)
	}
	if ns := ofType[events.Notice](r2.rec.all()); len(ns) != 1 || !strings.Contains(ns[0].Text, "input dialog (Name?) was cancelled") {
		t.Errorf("notices = %+v", ns)
	}
}

// A dialog whose timeout passes is left to pi; the hook's context ends.
func TestExtensionUITimeout(t *testing.T) {
	script := &fakepi.Script{Replies: []fakepi.Reply{{Text: "asked", UI: []fakepi.UI{{Method: "confirm", Title: "Quick?", TimeoutMs: 50}}}}}
	r := launch(t, script, nil, func(c *Config) {
		c.ExtensionUI = func(ctx context.Context, req UIRequest) UIResponse {
			<-ctx.Done()
			return UIResponse{Confirmed: true}
		}
	})
	res, err := r.e.Prompt(context.Background(), "go")
	if err != nil || res.Text != "asked [ui:timeout]" {
		t.Errorf("%q %v", res.Text, err)
	}
}

// Compact sends pi's compact with the extra instructions and returns the
// summary; the compaction's events are published.
func TestCompact(t *testing.T) {
	r := launch(t, nil, nil)
	if _, err := r.e.Compact(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "Nothing to compact") {
		t.Errorf("empty session: %v", err)
	}
	if _, err := r.e.Prompt(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	sum, err := r.e.Compact(context.Background(), "the tests")
	if err != nil || sum != "Summary of the conversation. Focus: the tests" {
		t.Fatalf("%q %v", sum, err)
	}
	ends := ofType[events.CompactionEnded](r.rec.all())
	if len(ends) != 2 || ends[0].Error == "" || ends[1].Summary != sum {
		t.Errorf("compaction ends = %+v", ends)
	}
}

// Branch needs an extension command; with one it moves the leaf and
// checks it moved.
func TestBranch(t *testing.T) {
	r := launch(t, nil, nil)
	if err := r.e.Branch(context.Background(), "abc"); !errors.Is(err, engine.ErrBranchUnsupported) {
		t.Errorf("without a command: %v", err)
	}
	r = launch(t, nil, nil, func(c *Config) { c.BranchCommand = "pi-tui-branch" })
	if _, err := r.e.Prompt(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	s, err := pisession.Open(context.Background(), r.file, pisession.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := s.Path()[0].ID
	s.Close()
	if err := r.e.Branch(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	// pi answers get_entries for an entry it does not have with an error,
	// as the real one does.
	if err := r.e.Branch(context.Background(), "nothere"); err == nil || !strings.Contains(err.Error(), "Entry not found: nothere") {
		t.Errorf("unknown entry: %v", err)
	}
}

// promptAsync runs a prompt on a goroutine and returns once its first
// delta arrived; the channel gets its result.
func (r *rig) promptAsync(ctx context.Context, text string) <-chan engine.Result {
	done := make(chan engine.Result, 1)
	go func() {
		res, err := r.e.Prompt(ctx, text)
		if err != nil {
			r.t.Error(err)
		}
		done <- res
	}()
	r.rec.waitFor(r.t, "first delta", func(e events.Event) bool { _, ok := e.(events.TextDelta); return ok })
	return done
}
