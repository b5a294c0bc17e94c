package runtimes

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// jsonl lists the session files in dir.
func jsonl(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// pi-tui writes a new session's header before pi starts on it. A pi that
// dies at its start leaves no file behind ("(untitled)" in the palette,
// pi's "(no messages)"): the session stays in memory, and the next launch
// writes the same file again, which pi then continues.
func TestFailedPiLaunchLeavesNoSessionFile(t *testing.T) {
	r := newPiRig(t, fakepi.Script{Replies: []fakepi.Reply{{Text: "from pi"}}}, func(o *Options) {
		o.PiEnv = append(o.PiEnv, "FAKEPI_DIE_AT_START=pi: cannot load the agent dir")
	})
	ctx := context.Background()
	s, err := r.m.Sessions().Open(ctx, r.sid)
	if err != nil {
		t.Fatal(err)
	}
	file := s.File()
	if _, err := r.m.Prompt(ctx, r.sid, "", "hello"); err == nil {
		t.Fatal("the prompt ran on a pi that died at its start")
	}
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the failed launch left %s (%v)", file, err)
	}
	if left := jsonl(t, filepath.Dir(file)); len(left) != 0 {
		t.Fatalf("session files left: %v", left)
	}
	r.m.opts.PiEnv = r.m.opts.PiEnv[:1] // the script only: pi starts now
	if res := r.prompt("hello"); res.Text != "from pi" {
		t.Fatalf("answer = %q", res.Text)
	}
	if left := jsonl(t, filepath.Dir(file)); len(left) != 1 || left[0] != file {
		t.Errorf("after a launch that worked, session files = %v, want %s", left, file)
	}
}
