package screentest

import (
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// work counts the program's commands that are running.
type work struct {
	mu  sync.Mutex
	n   int
	end chan struct{} // closed when n drops to 0; nil while n is 0
}

func (w *work) start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		w.end = make(chan struct{})
	}
	w.n++
}

func (w *work) done() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n--
	if w.n == 0 {
		close(w.end)
		w.end = nil
	}
}

// idle waits, at most limit, until no command runs, and returns how many
// still do.
func (w *work) idle(limit time.Duration) int {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		n, end := w.n, w.end
		w.mu.Unlock()
		if n == 0 {
			return 0
		}
		select {
		case <-end:
		case <-deadline.C:
			return n
		}
	}
}

// frames keeps the last screen the model drew, whole: the terminal is
// sent only the lines a frame changed, so a wait for a state (two things
// on screen at once) reads the frame itself.
type frames struct {
	mu      sync.Mutex
	last    string
	changed chan struct{} // closed when last changes
}

func newFrames() *frames { return &frames{changed: make(chan struct{})} }

func (f *frames) set(view string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if view == f.last {
		return
	}
	f.last = view
	close(f.changed)
	f.changed = make(chan struct{})
}

// now returns the last frame and a channel closed when the next differs.
func (f *frames) now() (string, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last, f.changed
}

// tracked is a model whose commands are counted while they run, batches
// included, and whose frames are kept.
type tracked struct {
	tea.Model
	work   *work
	frames *frames
	// sized: the program has been told the screen's size. A frame drawn
	// before (at the model's default size, a first frame the runtime asks
	// for at once) is not a frame of the test's screen, and a wait that
	// took it flaked under load.
	sized bool
}

// View runs on the program's event loop, as Update does.
func (t *tracked) View() string {
	v := t.Model.View()
	if t.sized {
		t.frames.set(v)
	}
	return v
}

func (t *tracked) Init() tea.Cmd { return t.track(t.Model.Init()) }

func (t *tracked) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.WindowSizeMsg); ok {
		t.sized = true
	}
	m, cmd := t.Model.Update(msg)
	t.Model = m
	return t, t.track(cmd)
}

// untracked names commands the wait at a test's end does not count.
//
// Timers (tea.Tick, tea.Every: spinners, the tool clock, quiet periods;
// a text field's cursor blink, which waits its 530 ms on a context) only
// wait and then make a message, which goes nowhere once the program
// ended: waiting for them would only add up to a second to every test.
var untracked = []string{"/bubbletea.Tick.", "/bubbletea.Every.", "/bubbles/cursor.(*Model).BlinkCmd."}

// track counts cmd while it runs, and the commands of a batch it returns
// while they run.
func (t *tracked) track(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	name := runtime.FuncForPC(reflect.ValueOf(cmd).Pointer()).Name()
	for _, u := range untracked {
		if strings.Contains(name, u) {
			return cmd
		}
	}
	return func() tea.Msg {
		t.work.start()
		defer t.work.done()
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			out := make(tea.BatchMsg, len(b))
			for i, c := range b {
				out[i] = t.track(c)
			}
			return out
		}
		return msg
	}
}
