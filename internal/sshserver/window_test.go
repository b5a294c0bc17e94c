package sshserver

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// sizeModel reports every window size it is given.
type sizeModel struct{ sizes chan<- tea.WindowSizeMsg }

func (m sizeModel) Init() tea.Cmd { return nil }

func (m sizeModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if msg, ok := msg.(tea.WindowSizeMsg); ok {
		m.sizes <- msg
	}
	return m, nil
}

func (m sizeModel) View() string { return "sizes" }

// Window sizes are clamped to what a terminal can have, in the pty-req and
// in every window-change.
func TestHugeWindowIsClamped(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	sizes := make(chan tea.WindowSizeMsg, 64)
	w.start(func(c *Config) {
		c.NewModel = func(ssh.Session, *lipgloss.Renderer, ExecFunc) tea.Model { return sizeModel{sizes} }
	})
	c, err := w.dial()
	if err != nil {
		t.Fatal(err)
	}
	const huge = 1<<31 - 1
	tm := openTermOn(t, c, huge, huge, "xterm", nil, true)
	next := func(want string) {
		t.Helper()
		select {
		case got := <-sizes:
			if s := fmt.Sprintf("%d×%d", got.Width, got.Height); s != want {
				t.Fatalf("the program got %s, want %s", s, want)
			}
		case <-time.After(waitLimit):
			t.Fatalf("no window size; want %s", want)
		}
	}
	full := fmt.Sprintf("%d×%d", maxWindowCols, maxWindowRows)
	next(full) // from the pty-req
	for _, win := range []struct {
		cols, rows uint32
		want       string
	}{{huge, huge, full}, {120, 40, "120×40"}, {1<<32 - 1, 7, fmt.Sprintf("%d×7", maxWindowCols)}, {0, 0, "1×1"}} {
		if _, err := tm.sess.SendRequest("window-change", false, gossh.Marshal(struct{ Cols, Rows, W, H uint32 }{win.cols, win.rows, 0, 0})); err != nil {
			t.Fatal(err)
		}
		next(win.want)
	}
}
