package chat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// turnChat is a chat on the built-in engine, whose model is a fake that
// answers "answer to" the message, opened on a session of its project.
func turnChat(t *testing.T) (*Model, string) {
	t.Helper()
	fake := fakemodel.New(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "answer to " + req.LastUser}
	})
	m, a, _ := engineChat(t, map[string]string{runtimes.EnvEngine: "builtin", "FAKE_API_KEY": "test-key"}, nil)
	agentDir := m.d.Host.Places.AgentDir
	os.MkdirAll(agentDir, 0o755)
	os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(fake.ModelsJSON("openai-completions")), 0o644)
	os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(`{"defaultProvider":"fake","defaultModel":"m1"}`), 0o644)
	opened(t, m, a)
	return m, a
}

// deliverAll hands m every event published for session sid so far: a
// mark is published behind them and delivered last.
func deliverAll(t *testing.T, m *Model, sid string) {
	t.Helper()
	m.d.Events.Publish(events.Notice{SessionID: sid, Level: "info", Source: "test-mark", Text: "mark"})
	deliverUntil(t, m, func(e events.Event) bool { n, ok := e.(events.Notice); return ok && n.Source == "test-mark" })
}

// A turn ends with its agent_end (ADR 0084): that event alone sends the
// message queued while the agent worked, whatever the prompt's own
// command has returned by then.
func TestAQueuedMessageGoesAtTheTurnsEnd(t *testing.T) {
	m, _ := turnChat(t)
	first := m.send("first question")
	typeKeys(m, "second question")
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if !strings.Contains(m.View(), "1 queued") {
		t.Fatalf("the second message is not queued:\n%s", m.View())
	}
	result := first() // the prompt runs to its end; its result waits
	deliverUntil(t, m, func(e events.Event) bool { _, ok := e.(events.AgentEnded); return ok })
	v := m.View()
	if !strings.Contains(v, "answer to first question") || !strings.Contains(v, "second question") || strings.Contains(v, "queued") {
		t.Errorf("at the first turn's end the queued message did not go:\n%s", v)
	}
	if !m.Busy() {
		t.Error("the queued message's turn is not running")
	}
	if result != nil {
		m.Update(result)
	}
}

// A /compact that cannot start (one turn is nothing to compact) says so
// and ends, after a turn as well as before one: the compaction's end is
// its event, which the core sends for a compaction the engine never
// began too.
func TestCompactThatCannotStartSaysWhy(t *testing.T) {
	m, sid := turnChat(t)
	if msg := m.send("first question")(); msg != nil {
		m.Update(msg)
	}
	deliverUntil(t, m, func(e events.Event) bool { _, ok := e.(events.AgentEnded); return ok })
	if msg := m.command("/compact")(); msg != nil {
		m.Update(msg)
	}
	deliverAll(t, m, sid)
	if v := m.View(); !strings.Contains(v, "compaction failed: nothing to compact yet") {
		t.Errorf("the compaction's failure is not said:\n%s", v)
	}
	if m.Busy() {
		t.Error("the compaction's end did not end it")
	}
}
