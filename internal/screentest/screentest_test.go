package screentest

import (
	"fmt"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// sizeModel draws its size, 80x24 until it is told one; taking a size
// waits for gate.
type sizeModel struct {
	w, h int
	gate chan struct{}
}

func (m sizeModel) Init() tea.Cmd { return nil }

func (m sizeModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		<-m.gate
		m.w, m.h = ws.Width, ws.Height
	}
	return m, nil
}

func (m sizeModel) View() string {
	if m.w == 0 {
		return "80x24"
	}
	return fmt.Sprintf("%dx%d", m.w, m.h)
}

// A wait reads the frames of the test's screen only: the first frame,
// which a program draws before it is told the size, is not one.
func TestWaitFrameSkipsTheFrameBeforeTheSize(t *testing.T) {
	gate := make(chan struct{})
	s := Start(t, sizeModel{gate: gate}, 60, 16, nil)
	var release sync.Once
	frame := s.WaitFrame(func(f string) bool {
		release.Do(func() { close(gate) }) // the size may arrive once the wait looked
		return f != ""
	})
	if frame != "60x16" {
		t.Errorf("the wait took the frame %q, want 60x16", frame)
	}
}
