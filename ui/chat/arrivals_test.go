package chat

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// realSession makes m's project a real one, in a temporary folder, and
// starts a session file in it.
func realSession(t *testing.T, m *Model) *sessions.Session {
	t.Helper()
	ctx, root := context.Background(), t.TempDir()
	p, _, err := m.d.Host.Projects.Add(ctx, root, "p", false)
	if err != nil {
		t.Fatal(err)
	}
	m.project.ID, m.project.Root = p.ID, p.Root
	s, err := m.d.Host.Sessions.Create(ctx, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openWithArrival opens a session of one message in m, and has another
// writer (pi, another pi-tui) append an answer to its file.
func openWithArrival(t *testing.T, m *Model) openedMsg {
	t.Helper()
	ctx := context.Background()
	s := realSession(t, m)
	user := entries.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hello"}}}}
	if _, err := s.Append(ctx, sessions.TypeUser, user); err != nil {
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
	reply := entries.StoredMessage{Message: provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{{Type: provider.PartText, Text: "written by the other one"}}}, StopReason: provider.StopEnd}
	if _, err := other.Append(ctx, sessions.TypeAssistant, reply); err != nil {
		t.Fatal(err)
	}
	return opened
}

// What another writer appends to the open session shows in its transcript
// without reopening it: the view's poll of the file reads it, the session
// announces it on the broker (events.SessionAppended), and the view,
// like every program showing the session, rereads the branch.
func TestTranscriptShowsWhatAnotherWriterAppended(t *testing.T) {
	m := testModel(t)
	opened := openWithArrival(t, m)
	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go m.watchArrivals(wctx, opened.id, opened.sess)()

	// The registry's word that the project changed (its session count)
	// comes too; the chat reads it for the project's folders.
	got := make(chan []events.Event, 1)
	go func() {
		var out []events.Event
		for len(out) == 0 {
			b, ok := m.br.sub.Next()
			if !ok {
				break
			}
			for _, e := range b {
				if _, project := e.(events.ProjectsChanged); !project {
					out = append(out, e)
				}
			}
		}
		got <- out
	}()
	var batch []events.Event
	select {
	case batch = <-got:
	case <-time.After(time.Minute): // a fail-safe; the batch ends the wait
		t.Fatal("nothing arrived from the broker")
	}
	if len(batch) != 1 || batch[0] != (events.SessionAppended{SessionID: opened.id, Entries: 1}) {
		t.Fatalf("the broker delivered %+v", batch)
	}
	cmd := m.event(batch[0])
	if cmd == nil {
		t.Fatal("the view did nothing with the arrival")
	}
	m.Update(m.Update(cmd())())
	if v := m.View(); !strings.Contains(v, "hello") || !strings.Contains(v, "written by the other one") {
		t.Errorf("the transcript after the arrival:\n%s", v)
	}
}
