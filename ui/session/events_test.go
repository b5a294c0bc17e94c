package session

import (
	"context"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
	coresession "github.com/pi-tui/pi-tui/core/session"
)

// Entries another writer appended that this process reads (here by a
// refresh of the session object the runtimes share, as an append of ours
// would) reach the open view as events.SessionAppended from the broker,
// and the view shows them: no program showing the session needs its own
// watch of the object.
func TestArrivalsReachTheViewThroughTheBroker(t *testing.T) {
	m := testModel(t)
	ctx := context.Background()
	s := realSession(t, m)
	user := agent.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hello"}}}}
	if _, err := s.Append(ctx, coresession.TypeUser, user); err != nil {
		t.Fatal(err)
	}
	opened := m.openSession(s.ID())().(openedMsg)
	m.Update(opened)

	other, err := coresession.NewManager(m.d.Host.Store, coresession.Config{AgentDir: m.d.Host.Places.AgentDir}).Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	reply := agent.StoredMessage{Message: provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{{Type: provider.PartText, Text: "written by the other one"}}}, StopReason: provider.StopEnd}
	if _, err := other.Append(ctx, coresession.TypeAssistant, reply); err != nil {
		t.Fatal(err)
	}
	if n, err := opened.sess.Refresh(ctx); n != 1 || err != nil {
		t.Fatalf("refresh: %d, %v", n, err)
	}

	got := make(chan []events.Event, 1)
	go func() { b, _ := m.br.sub.Next(); got <- b }()
	var batch []events.Event
	select {
	case batch = <-got:
	case <-time.After(time.Minute): // a fail-safe; the batch ends the wait
		t.Fatal("nothing arrived from the broker")
	}
	if len(batch) != 1 || batch[0] != (events.SessionAppended{SessionID: s.ID(), Entries: 1}) {
		t.Fatalf("the broker delivered %+v", batch)
	}
	cmd := m.event(batch[0])
	if cmd == nil {
		t.Fatal("the view did nothing with the arrival")
	}
	m.Update(cmd())
	if len(m.items) != 2 {
		t.Fatalf("transcript has %d items after the arrival", len(m.items))
	}
	it := m.items[1]
	it.decode()
	if it.text != "written by the other one" {
		t.Errorf("arrived item = %q", it.text)
	}
}
