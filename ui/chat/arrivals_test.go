package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/provider"
	coresession "github.com/pi-tui/pi-tui/core/session"
	"github.com/pi-tui/pi-tui/store"
)

// realSession makes m's project a real one, in a temporary folder, and
// starts a session file in it.
func realSession(t *testing.T, m *Model) *coresession.Session {
	t.Helper()
	ctx, root := context.Background(), t.TempDir()
	if _, _, err := m.d.Host.Store.InsertProject(ctx, store.ProjectRow{ID: "p1", Name: "p", Root: root, CreatedAt: 1}); err != nil {
		t.Fatal(err)
	}
	m.project.ID, m.project.Root = "p1", root
	s, err := m.d.Runtimes.Sessions().Create(ctx, "p1", "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// What another writer (pi, another pi-tui) appends to the open session
// shows in its transcript without reopening it.
func TestTranscriptShowsWhatAnotherWriterAppended(t *testing.T) {
	m := testModel(t)
	ctx := context.Background()
	st := m.d.Host.Store
	s := realSession(t, m)
	user := agent.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hello"}}}}
	if _, err := s.Append(ctx, coresession.TypeUser, user); err != nil {
		t.Fatal(err)
	}
	m.SetSize(100, 30)
	opened := m.Open(s.ID())().(openedMsg)
	m.Update(opened)
	if v := m.View(); !strings.Contains(v, "hello") {
		t.Fatalf("opened without its message:\n%s", v)
	}

	other, err := coresession.NewManager(st, coresession.Config{AgentDir: m.d.Host.Places.AgentDir}).Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	reply := agent.StoredMessage{Message: provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{{Type: provider.PartText, Text: "written by the other one"}}}, StopReason: provider.StopEnd}
	if _, err := other.Append(ctx, coresession.TypeAssistant, reply); err != nil {
		t.Fatal(err)
	}

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	msg := m.watchArrivals(wctx, s.ID(), opened.sess)()
	if _, ok := msg.(arrivedMsg); !ok {
		t.Fatalf("watch returned %T, want arrivedMsg", msg)
	}
	m.Update(m.Update(msg)())
	if v := m.View(); !strings.Contains(v, "hello") || !strings.Contains(v, "written by the other one") {
		t.Errorf("the transcript after the arrival:\n%s", v)
	}
}
