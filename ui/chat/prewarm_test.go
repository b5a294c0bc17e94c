package chat

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// runAll runs cmd and the commands it batches, each on its own
// goroutine (a program's commands run so), and hands their messages on.
func runAll(cmd tea.Cmd, out chan<- tea.Msg) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				runAll(c, out)
			}
			return
		}
		out <- msg
	}()
}

// Opening a session's view launches its runtime in the background; a
// launch that fails is said in the notices area, and the view stays.
func TestOpeningASessionPrewarmsItsRuntime(t *testing.T) {
	d, _ := benchDeps(t)
	called := make(chan string, 1)
	d.Prewarm = func(ctx context.Context, sid string) error {
		called <- sid
		return errors.New("pi at /usr/bin/pi exited at start: node: not found")
	}
	m := newChat(t, d)
	m.SetSize(100, 30)
	msgs := make(chan tea.Msg, 16)
	runAll(m.Update(openedMsg{id: "s1", title: "t"}), msgs)
	if sid := <-called; sid != "s1" {
		t.Fatalf("prewarmed %q", sid)
	}
	for msg := range msgs {
		if p, ok := msg.(prewarmedMsg); ok {
			m.Update(p)
			break
		}
	}
	if v := m.View(); !strings.Contains(v, "the runtime could not be started in the background: pi at /usr/bin/pi exited at start") {
		t.Errorf("the failed background launch was not said:\n%s", v)
	}
}
