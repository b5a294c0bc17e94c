package runtimes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// fakePiPath is the fake pi this test binary built (TestMain).
var fakePiPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "runtimes-fakepi-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakePiPath, err = fakepi.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build the fake pi:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// piRig is a rig whose manager finds the fake pi (PI_TUI_PI) through a
// wrapper that dies mid-turn while the file die exists, playing script.
type piRig struct {
	*rig
	dir string // the wrapper's folder (die)
}

func newPiRig(t *testing.T, script fakepi.Script, tweak func(*Options)) *piRig {
	t.Helper()
	dir := t.TempDir()
	scriptFile := filepath.Join(dir, "script.json")
	b, _ := json.Marshal(script)
	if err := os.WriteFile(scriptFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(dir, "pi")
	sh := "#!/bin/sh\nif [ -f '" + filepath.Join(dir, "die") + "' ]; then FAKEPI_DIE_AFTER=9; export FAKEPI_DIE_AFTER; fi\nexec '" + fakePiPath + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(sh), 0o755); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, readThenAnswer, func(o *Options) {
		env := o.Env
		o.Env = func(k string) string {
			if k == "PI_TUI_PI" {
				return wrapper
			}
			return env(k)
		}
		o.PiEnv = []string{"FAKEPI_SCRIPT=" + scriptFile}
		if tweak != nil {
			tweak(o)
		}
	})
	return &piRig{rig: r, dir: dir}
}

// systemTexts are the texts the bridge gave the fake pi for its system
// prompt, one per run, as the fake wrote them into the session file.
func (r *piRig) systemTexts(sessionID string) []string {
	r.t.Helper()
	s, err := r.m.Sessions().Open(context.Background(), sessionID)
	if err != nil {
		r.t.Fatal(err)
	}
	data, err := os.ReadFile(s.File())
	if err != nil {
		r.t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		var e struct {
			Message struct {
				Role     string
				Sections struct {
					PiTui string `json:"pi_tui"`
				}
			}
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Message.Role == "system" {
			out = append(out, e.Message.Sections.PiTui)
		}
	}
	return out
}

// With a supported pi found, auto runs it; without one, the built-in
// engine. runtime_launched names the engine and its version either way.
func TestAutoPicksPiWhenFoundElseBuiltin(t *testing.T) {
	r := newPiRig(t, fakepi.Script{Replies: []fakepi.Reply{{Text: "from pi"}}}, nil)
	if res := r.prompt("hello"); res.Text != "from pi" {
		t.Fatalf("answer = %q", res.Text)
	}
	l := find[events.RuntimeLaunched](r.take())
	if len(l) != 1 || l[0].Engine != "pi" || l[0].EngineVersion != "1.6.0" || l[0].Reason != ReasonNew {
		t.Errorf("launch = %+v", l)
	}
	if got := r.m.State(r.sid); got.Runtime != StateIdle {
		t.Errorf("state = %+v", got)
	}

	b := newRig(t, readThenAnswer, nil) // no pi anywhere
	b.prompt("hello")
	if l := find[events.RuntimeLaunched](b.take()); len(l) != 1 || l[0].Engine != "builtin" {
		t.Errorf("without pi: %+v", l)
	}
}

// pi chosen and missing, or a version pi-tui does not speak: one error
// line naming why and how to fix it; a bad PI_TUI_ENGINE is named too.
func TestPiChosenButUnusable(t *testing.T) {
	r := newRig(t, readThenAnswer, func(o *Options) { o.Engine = "pi" })
	_, err := r.m.Prompt(context.Background(), r.sid, "", "hello")
	if err == nil || !strings.Contains(err.Error(), "pi not found") || !strings.Contains(err.Error(), "PI_TUI_PI") || !strings.Contains(err.Error(), "--engine builtin") || strings.Contains(err.Error(), "\n") {
		t.Errorf("without pi: %v", err)
	}
	old := filepath.Join(t.TempDir(), "pi")
	os.WriteFile(old, []byte("#!/bin/sh\necho 1.5.2\n"), 0o755)
	r = newRig(t, readThenAnswer, func(o *Options) {
		o.Engine = "pi"
		o.Env = func(k string) string {
			if k == "PI_TUI_PI" {
				return old
			}
			return ""
		}
	})
	if _, err := r.m.Prompt(context.Background(), r.sid, "", "hello"); err == nil || !strings.Contains(err.Error(), "pi 1.5.2") {
		t.Errorf("an old pi: %v", err)
	}
	r = newRig(t, readThenAnswer, func(o *Options) {
		o.Env = func(k string) string {
			if k == EnvEngine {
				return "node"
			}
			return ""
		}
	})
	if _, err := r.m.Prompt(context.Background(), r.sid, "", "hello"); err == nil || !strings.Contains(err.Error(), `PI_TUI_ENGINE: unknown engine "node"`) {
		t.Errorf("a bad PI_TUI_ENGINE: %v", err)
	}
}

// A caller's own model client (scripts, the existing tests) means the
// built-in engine, even with a pi to be found.
func TestOwnModelClientMeansBuiltin(t *testing.T) {
	r := newPiRig(t, fakepi.Script{}, func(o *Options) {
		// The rig's fake model, through a client of the caller's own.
		agentDir, env := o.Host.Places.AgentDir, o.Env
		o.Resolve = func(spec string) (provider.Client, provider.Model, error) {
			return provider.Resolve(agentDir, env, spec, provider.Options{})
		}
	})
	r.prompt("hello")
	if l := find[events.RuntimeLaunched](r.take()); len(l) != 1 || l[0].Engine != "builtin" {
		t.Errorf("launch = %+v", l)
	}
}

// A prompt through pi: the bridge gives pi the root chain and the memory
// frame for its system prompt, file tools are preflighted and confined to
// the root, write asks for approval (denied here: nobody shows the
// session), and the events are the built-in engine's kinds.
func TestPiPromptThroughTheBridge(t *testing.T) {
	r := newPiRig(t, fakepi.Script{Replies: []fakepi.Reply{
		{Tools: []fakepi.Tool{
			{ID: "t1", Name: "read", Args: map[string]any{"path": "packages/api/handler.go"}},
			{ID: "t2", Name: "read", Args: map[string]any{"path": "../outside/secret.txt"}},
			{ID: "t3", Name: "write", Args: map[string]any{"path": "new.txt", "content": "x"}},
		}},
		{Text: "done"},
	}}, nil)
	os.MkdirAll(filepath.Join(filepath.Dir(r.root), "outside"), 0o755)
	os.WriteFile(filepath.Join(filepath.Dir(r.root), "outside", "secret.txt"), []byte("SECRET"), 0o644)
	m, _ := r.h.Memory.Load(context.Background(), r.root)
	if _, err := r.h.Memory.Save(context.Background(), m, []memory.Entry{{Content: "Deploys happen on Fridays."}}); err != nil {
		t.Fatal(err)
	}
	if res := r.prompt("look around"); res.Text != "done" {
		t.Fatalf("answer = %q", res.Text)
	}
	ev := r.take()
	ends := find[events.ToolEnded](ev)
	if len(ends) != 3 {
		t.Fatalf("tool ends = %+v", ends)
	}
	if ends[0].Preflight == nil || strings.Join(ends[0].Preflight.Labels, ",") != "AGENTS.md,packages/api/AGENTS.md" || ends[0].IsError {
		t.Errorf("nested read = %+v", ends[0])
	}
	if !ends[1].IsError || !strings.Contains(ends[1].Result, "outside") || strings.Contains(ends[1].Result, "SECRET") {
		t.Errorf("read outside the root = %+v", ends[1])
	}
	if !ends[2].IsError {
		t.Errorf("write without approval ran: %+v", ends[2])
	}
	if _, err := os.Stat(filepath.Join(r.root, "new.txt")); err == nil {
		t.Error("the denied write wrote the file")
	}
	for _, kind := range []string{"agent_start", "message_update", "tool_execution_start", "agent_end"} {
		if !hasWire(ev, kind) {
			t.Errorf("no %s event", kind)
		}
	}
	sys := r.systemTexts(r.sid)
	if len(sys) != 1 || strings.Count(sys[0], "Root rule: use tabs.") != 1 || !strings.Contains(sys[0], "Deploys happen on Fridays.") ||
		!strings.Contains(sys[0], "<project-memory") || strings.Contains(sys[0], "API rule") || strings.Contains(sys[0], "You are pi, a coding agent") {
		t.Errorf("system text pi got = %q", sys)
	}
}

// hasWire reports whether an event of that wire type is among evs.
func hasWire(evs []events.Event, kind string) bool {
	for _, e := range evs {
		if b, err := events.Marshal(e); err == nil && strings.Contains(string(b), `"type":"`+kind+`"`) {
			return true
		}
	}
	return false
}

// A changed root AGENTS.md and a memory save retire the idle pi runtime
// (with the reason) and the next prompt's pi is given the new text.
func TestPiRetiredWhenInstructionsOrMemoryChange(t *testing.T) {
	r := newPiRig(t, fakepi.Script{}, nil)
	r.prompt("one")
	r.take()
	r.write("AGENTS.md", "Root rule: use spaces.")
	r.await("retirement", func(e events.Event) bool {
		x, ok := e.(events.RuntimeRetired)
		return ok && x.Reason == ReasonInstructionsChanged
	})
	r.prompt("two")
	if l := find[events.RuntimeLaunched](r.take()); len(l) != 1 || l[0].Reason != ReasonInstructionsChanged || l[0].Engine != "pi" {
		t.Errorf("launch = %+v", l)
	}
	m, _ := r.h.Memory.Load(context.Background(), r.root)
	if _, err := r.h.Memory.Save(context.Background(), m, []memory.Entry{{Content: "Staging is hermes."}}); err != nil {
		t.Fatal(err)
	}
	r.await("retirement", func(e events.Event) bool {
		x, ok := e.(events.RuntimeRetired)
		return ok && x.Reason == ReasonMemoryChanged
	})
	r.prompt("three")
	if l := find[events.RuntimeLaunched](r.take()); len(l) != 1 || l[0].Reason != ReasonMemoryChanged {
		t.Errorf("launch = %+v", l)
	}
	sys := r.systemTexts(r.sid)
	if len(sys) != 3 || !strings.Contains(sys[0], "use tabs") || !strings.Contains(sys[1], "use spaces") || !strings.Contains(sys[2], "Staging is hermes.") {
		t.Errorf("system texts = %q", sys)
	}
}

// pi dying mid-turn: the prompt returns pi's last stderr lines in one
// error, keeps what had streamed, the runtime is retired as crashed and
// the next prompt launches a new pi.
func TestPiCrashMidTurnThenRelaunch(t *testing.T) {
	r := newPiRig(t, fakepi.Script{Replies: []fakepi.Reply{{Text: "a long answer that is cut"}, {Text: "back"}}}, nil)
	os.WriteFile(filepath.Join(r.dir, "die"), nil, 0o644)
	_, err := r.m.Prompt(context.Background(), r.sid, "", "hello")
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("crash: %v", err)
	}
	ev := r.take()
	if ret := find[events.RuntimeRetired](ev); len(ret) != 1 || ret[0].Reason != ReasonCrashed {
		t.Errorf("retired = %+v", ret)
	}
	if !hasWire(ev, "message_update") {
		t.Error("what streamed before the crash was not published")
	}
	os.Remove(filepath.Join(r.dir, "die"))
	res, err := r.m.Prompt(context.Background(), r.sid, "", "again")
	if err != nil {
		t.Fatal(err)
	}
	if l := find[events.RuntimeLaunched](r.take()); len(l) != 1 || l[0].Reason != ReasonCrashed || res.Text == "" {
		t.Errorf("relaunch = %+v, answer %q", l, res.Text)
	}
}

// With the cap reached, the pi runtime idle longest makes room (cap).
func TestPiCapRetiresTheOldestIdle(t *testing.T) {
	r := newPiRig(t, fakepi.Script{}, nil)
	if err := r.h.SetMaxPiRuntimes(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	pid := r.sid
	var ids []string
	for range 2 {
		s, err := r.m.sessions.Create(context.Background(), mustSession(t, r.rig).ProjectID(), "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID())
	}
	for _, id := range []string{pid, ids[0]} {
		if _, err := r.m.Prompt(context.Background(), id, "", "hi"); err != nil {
			t.Fatal(err)
		}
	}
	r.take()
	if _, err := r.m.Prompt(context.Background(), ids[1], "", "hi"); err != nil {
		t.Fatal(err)
	}
	ret := find[events.RuntimeRetired](r.take())
	if len(ret) != 1 || ret[0].Reason != ReasonCap || ret[0].SessionID != pid {
		t.Errorf("retired = %+v, want %s with reason cap", ret, pid)
	}
}

func mustSession(t *testing.T, r *rig) interface{ ProjectID() string } {
	t.Helper()
	s, err := r.m.Sessions().Open(context.Background(), r.sid)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Prewarm launches without a prompt; the first prompt reuses it.
func TestPrewarmThenPromptReuses(t *testing.T) {
	r := newPiRig(t, fakepi.Script{}, nil)
	if err := r.m.Prewarm(context.Background(), r.sid); err != nil {
		t.Fatal(err)
	}
	if l := find[events.RuntimeLaunched](r.take()); len(l) != 1 || l[0].Reason != ReasonNew || l[0].Engine != "pi" {
		t.Fatalf("prewarm = %+v", l)
	}
	// Prewarm again: nothing new.
	if err := r.m.Prewarm(context.Background(), r.sid); err != nil {
		t.Fatal(err)
	}
	r.prompt("hi")
	ev := r.take()
	if l := find[events.RuntimeLaunched](ev); len(l) != 0 {
		t.Errorf("launched again: %+v", l)
	}
	if u := find[events.RuntimeReused](ev); len(u) != 1 || u[0].Reason != "prewarmed" {
		t.Errorf("reuse = %+v", u)
	}
	// A deleted session's prewarm fails cleanly.
	if err := r.m.Sessions().Delete(context.Background(), r.sid); err != nil {
		t.Fatal(err)
	}
	if err := r.m.Prewarm(context.Background(), r.sid); err == nil {
		t.Error("prewarm of a deleted session succeeded")
	}
}

// pi's own commands pass through; the built-in engine has none.
func TestCallPassesThrough(t *testing.T) {
	r := newPiRig(t, fakepi.Script{}, nil)
	data, err := r.m.Call(context.Background(), r.sid, "get_commands", nil)
	if err != nil || !strings.Contains(string(data), "pi-tui-branch") {
		t.Errorf("get_commands = %s, %v", data, err)
	}
	if _, err := r.m.Call(context.Background(), r.sid, "frobnicate", json.RawMessage(`{"x":1}`)); err == nil || !strings.Contains(err.Error(), "Unknown command") {
		t.Errorf("pi's refusal: %v", err)
	}
	b := newRig(t, readThenAnswer, nil)
	if _, err := b.m.Call(context.Background(), b.sid, "get_commands", nil); err == nil || err.Error() != "the builtin engine has no get_commands" {
		t.Errorf("builtin: %v", err)
	}
}

// An extension's dialog with nothing showing the session is cancelled,
// and a notice says so.
func TestExtensionDialogHeadlessIsCancelled(t *testing.T) {
	r := newPiRig(t, fakepi.Script{Replies: []fakepi.Reply{{Text: "asked", UI: []fakepi.UI{{Method: "confirm", Title: "Deploy?"}}}}}, nil)
	res := r.prompt("go")
	if !strings.Contains(res.Text, "[ui:cancelled]") {
		t.Errorf("answer = %q", res.Text)
	}
	var said bool
	for _, n := range find[events.Notice](r.take()) {
		said = said || (strings.Contains(n.Text, "Deploy?") && strings.Contains(n.Text, "no UI to answer it: cancelled"))
	}
	if !said {
		t.Error("no notice said the dialog was cancelled")
	}
}

// A busy pi runtime is never swapped or capped away.
func TestPiBusyIsNotSwapped(t *testing.T) {
	r := newPiRig(t, fakepi.Script{Replies: []fakepi.Reply{{Text: "wait here", HoldAbort: true}}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.m.Prompt(ctx, r.sid, "", "hold")
		done <- err
	}()
	r.await("a delta", func(e events.Event) bool { _, ok := e.(events.TextDelta); return ok })
	if _, err := r.m.Prepare(context.Background(), r.sid, ""); !errors.Is(err, engine.ErrBusy) {
		t.Errorf("prepare while busy: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("aborted prompt: %v", err)
	}
}
