//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package pisession

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO named like a session is listed as not a session and never opened
// (opening a FIFO for reading would hang the listing).
func TestListDoesNotOpenAFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.jsonl"), 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	writeFile(t, filepath.Join(dir, "ok.jsonl"), header("ok")+msgLine("aaaaaaaa", "", "user", "hi", 1))
	list, err := List(ctxT(t), dir, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("listed %d", len(list))
	}
	for _, s := range list {
		if strings.HasSuffix(s.Path, "pipe.jsonl") != s.Broken {
			t.Errorf("%s: broken=%v %q", s.Path, s.Broken, s.Problem)
		}
	}
	if _, err := Open(ctxT(t), filepath.Join(dir, "pipe.jsonl"), Options{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Open of a FIFO: %v", err)
	}
}
