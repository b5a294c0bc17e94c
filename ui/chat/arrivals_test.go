package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/provider"
	coresession "github.com/pi-tui/pi-tui/core/session"
)

// realSession makes m's project a real one, in a temporary folder, and
// starts a session file in it.
func realSession(t *testing.T, m *Model) *coresession.Session {
	t.Helper()
	ctx, root := context.Background(), t.TempDir()
	p, _, err := m.d.Host.Projects.Add(ctx, root, "p", false)
	if err != nil {
		t.Fatal(err)
	}
	m.project.ID, m.project.Root = p.ID, p.Root
	s, err := m.d.Runtimes.Sessions().Create(ctx, p.ID, "")
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

	// Another process: a host core of its own over the same files.
	elsewhere, err := host.Open(ctx, m.d.Host.Places, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer elsewhere.Close()
	other, err := elsewhere.Sessions.Open(ctx, s.ID())
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
