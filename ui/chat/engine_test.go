package chat

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// engineChat is a chat over a host of its own whose runtime manager runs
// with env (PI_TUI_ENGINE, PI_TUI_PI) and piEnv for pi, in project p (a
// real folder), and two sessions of it.
func engineChat(t *testing.T, env map[string]string, piEnv []string) (m *Model, a, b string) {
	t.Helper()
	dir := t.TempDir()
	getenv := func(k string) string { return env[k] }
	h, err := host.Open(t.Context(), paths.Places{Home: dir, AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data")},
		host.Options{Env: getenv, Runtime: runtimes.Options{PiEnv: piEnv}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	d, _ := benchDeps(t)
	d = hostDeps(d.Ctx, h, d.UI)
	d.Env = getenv
	m = newChat(t, d)
	root := filepath.Join(dir, "proj")
	os.MkdirAll(root, 0o755)
	p, _, err := h.Projects.Add(t.Context(), root, "p", true)
	if err != nil {
		t.Fatal(err)
	}
	m.SetProject(registry.Project{ID: p.ID, Name: "p", Root: p.Root})
	m.SetSize(160, 30)
	var ids []string
	for range 2 {
		s, err := h.Sessions.Create(t.Context(), p.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID())
	}
	return m, ids[0], ids[1]
}

// opened opens session id in m as the list's enter does, and hands m
// every message the opening's commands bring until the background
// launch has answered (its prewarmedMsg, or nil when it succeeded).
func opened(t *testing.T, m *Model, id string) {
	t.Helper()
	m.Update(m.Open(id)().(openedMsg))
	if msg := m.prewarm(id)(); msg != nil {
		m.Update(msg)
	}
}

// The status bar names the engine of the session's live runtime: a
// session reopened on a pi that was launched before and reused since
// (runtime_reused names no engine) still says `pi 1.6.0`, as does a
// reuse announced while the view is open.
func TestReopenedSessionNamesItsLiveEngine(t *testing.T) {
	bin, err := fakepi.Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "script.json")
	raw, _ := json.Marshal(fakepi.Script{Replies: []fakepi.Reply{{Text: "hi back"}}})
	os.WriteFile(script, raw, 0o644)
	m, a, b := engineChat(t, map[string]string{"PI_TUI_PI": bin, runtimes.EnvEngine: "pi"}, []string{"FAKEPI_SCRIPT=" + script})
	rts := m.d.Host.Runtimes

	opened(t, m, a)
	deliverUntil(t, m, func(e events.Event) bool { _, ok := e.(events.RuntimeLaunched); return ok })
	if got := m.Engine(); got != "pi 1.6.0" {
		t.Fatalf("opened, the engine is %q", got)
	}
	// A prompt reuses the prewarmed pi: the latest runtime event is now
	// a reuse.
	if _, err := rts.Prompt(context.Background(), a, "", "hello"); err != nil {
		t.Fatal(err)
	}
	if _, ok := rts.State(a).Last.(events.RuntimeReused); !ok {
		t.Fatalf("the last runtime event is %T", rts.State(a).Last)
	}
	m.close()
	opened(t, m, b)
	m.close()
	m.Update(m.Open(a)().(openedMsg))
	if got := m.Engine(); got != "pi 1.6.0" {
		t.Errorf("reopened on its live pi, the engine is %q", got)
	}
	m.close()
	m.sid = a
	m.event(events.RuntimeReused{SessionID: a, Reason: "prewarmed"})
	if got := m.Engine(); got != "pi 1.6.0" {
		t.Errorf("after a reuse, the engine is %q", got)
	}
}

// With the pi engine chosen and no pi to be found, sending a message says
// why once (the background launch said it first; the transcript says it
// now, and the notice goes), with the Settings tab's way to the built-in
// engine rather than the command line's; no runtime ever ran.
func TestUnusablePiIsSaidOnce(t *testing.T) {
	m, a, _ := engineChat(t, map[string]string{runtimes.EnvEngine: "pi"}, nil)
	opened(t, m, a)
	if v := m.View(); !strings.Contains(v, "could not be started in the background: the pi engine is chosen") || strings.Contains(v, "--engine") {
		t.Errorf("the failed background launch:\n%s", v)
	}
	m.Update(m.send("hello")())
	// The prompt's agent_end says the error; the command's result only
	// puts the message back in the input.
	deliverUntil(t, m, func(e events.Event) bool { _, ok := e.(events.AgentEnded); return ok })
	v := m.View()
	if n := strings.Count(v, "pi not found"); n != 1 {
		t.Errorf("the error is said %d times:\n%s", n, v)
	}
	if strings.Contains(v, "--engine") || !strings.Contains(v, "Settings (3)") {
		t.Errorf("the advice does not fit the TUI:\n%s", v)
	}
	if got := m.RuntimeState(); got != "none" {
		t.Errorf("the runtime state is %q", got)
	}
}

// deliverUntil hands m the runtime's event batches until one holds an
// event stop accepts.
func deliverUntil(t *testing.T, m *Model, stop func(events.Event) bool) {
	t.Helper()
	for {
		msg := m.br.wait()()
		batch, ok := msg.(eventsMsg)
		if !ok {
			t.Fatalf("the subscription ended: %T", msg)
		}
		m.Update(batch)
		for _, e := range batch {
			if ev, ok := e.(events.Event); ok && stop(ev) {
				return
			}
		}
	}
}
