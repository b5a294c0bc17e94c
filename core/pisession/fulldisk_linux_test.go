package pisession

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An append to a session on a full disk says the disk is full, and the
// session stays readable: a cut line left behind is skipped.
func TestAppendOnAFullDiskSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (%v); needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	ctx := ctxT(t)
	s, err := Create(ctx, dir, NewSession{Cwd: "/p"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.AppendCustom(ctx, "pi-tui.test", map[string]string{"a": "b"}); err != nil {
		t.Fatal(err)
	}
	filler, _ := os.Create(filepath.Join(dir, "filler"))
	for chunk := make([]byte, 4096); ; {
		if _, err := filler.Write(chunk); err != nil {
			break
		}
	}
	for b := make([]byte, 1); ; {
		if _, err := filler.Write(b); err != nil {
			break
		}
	}
	filler.Close()
	_, err = s.AppendCustom(ctx, "pi-tui.test", map[string]string{"big": strings.Repeat("x", 8192)})
	if err == nil || !strings.Contains(err.Error(), "the disk is full") {
		t.Fatalf("append on a full disk: %v", err)
	}
	re, err := Open(ctx, s.File(), Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("the session no longer opens: %v", err)
	}
	re.Close()
}
