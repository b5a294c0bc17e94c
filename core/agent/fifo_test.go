package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/toolpolicy/guardtest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

func mkfifo(t *testing.T, p string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFileToolsNeverBlockOnAFIFO: a FIFO in the project (nobody writes to
// it) is refused or skipped by every tool, at once.
func TestFileToolsNeverBlockOnAFIFO(t *testing.T) {
	root := tempRoot(t)
	mkfifo(t, filepath.Join(root, "pipe"))
	mkfifo(t, filepath.Join(root, "sub", "pipe.go"))
	os.WriteFile(filepath.Join(root, "sub", "a.go"), []byte("needle\n"), 0o644)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		args map[string]string
		want string // in the result
		err  bool
	}{
		{"read", map[string]string{"path": "pipe"}, "not a regular file", true},
		{"edit", map[string]string{"path": "pipe", "oldText": "a", "newText": "b"}, "not a regular file", true},
		{"write", map[string]string{"path": "pipe", "content": "x"}, "not a regular file", true},
		{"grep", map[string]string{"pattern": "needle", "path": "pipe"}, "not a regular file", true},
		{"grep", map[string]string{"pattern": "needle", "path": "sub"}, "sub/a.go:1: needle", false},
		{"grep", map[string]string{"pattern": "needle", "path": "sub", "glob": "pipe*"}, "Not searched: 1 not a regular file (sub/pipe.go)", false},
		{"ls", map[string]string{"path": "pipe"}, "not a directory", true},
		{"find", map[string]string{"pattern": "*.go"}, "sub/a.go", false},
	} {
		res := guardtest.Returns(t, c.name+" "+c.args["path"], func() ToolResult { return runTool(ctx, root, call(c.name, c.args)) })
		if res.IsError != c.err || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s %v = %+v, want error=%v and %q", c.name, c.args, res, c.err, c.want)
		}
	}
	if err := guardtest.Returns(t, "preview", func() error { _, err := confine.ReadPreview(root, "pipe", 100); return err }); err == nil {
		t.Error("ReadPreview read a FIFO")
	}
	if fi, err := os.Lstat(filepath.Join(root, "pipe")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}

// TestAbortDuringGrepOfAFIFO: the model greps a FIFO and the user aborts;
// the turn ends.
func TestAbortDuringGrepOfAFIFO(t *testing.T) {
	h := newHarness(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "g", Name: "grep", Args: map[string]string{"pattern": "x", "path": "pipe"}}}}
		}
		return fakemodel.Reply{Text: "done"}
	}, nil)
	mkfifo(t, filepath.Join(h.root, "pipe"))
	done := make(chan Result, 1)
	go func() {
		res, _ := h.ag.Prompt(context.Background(), "go")
		done <- res
	}()
	for e := range h.evs {
		if _, ok := e.(events.ToolStarted); ok {
			break
		}
	}
	h.ag.Abort()
	guardtest.Returns(t, "the aborted prompt", func() Result { return <-done })
}

// TestAbortEndsTheTurnWhileAToolIsStuck: a tool stuck in a system call
// that no context can interrupt (an open of a FIFO that nobody writes)
// does not hold the turn: abort ends it and the call is recorded.
func TestAbortEndsTheTurnWhileAToolIsStuck(t *testing.T) {
	h := newHarness(t, allCallsThenDone([]fakemodel.Call{{ID: "s", Name: "read", Args: map[string]string{"path": "a"}}}), nil)
	fifo := filepath.Join(t.TempDir(), "stuck")
	mkfifo(t, fifo)
	released := make(chan struct{})
	h.ag.run = func(context.Context, toolEnv, ToolCall) ToolResult {
		defer close(released)
		f, err := os.Open(fifo) // blocks until the test opens the other end
		if err == nil {
			f.Close()
		}
		return ToolResult{Text: "late"}
	}
	t.Cleanup(func() {
		// Release the stuck open so the goroutine ends with the test.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		<-released
	})
	done := make(chan Result, 1)
	go func() {
		res, _ := h.ag.Prompt(context.Background(), "go")
		done <- res
	}()
	for e := range h.evs {
		if _, ok := e.(events.ToolStarted); ok {
			break
		}
	}
	h.ag.Abort()
	res := guardtest.Returns(t, "the aborted prompt", func() Result { return <-done })
	if !res.Aborted {
		t.Errorf("result = %+v", res)
	}
	if got := types(h.sess); got != "user,assistant,tool_result" {
		t.Errorf("entries = %s (the stuck call needs a result)", got)
	}
}
