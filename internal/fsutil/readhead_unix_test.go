//go:build unix

package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// ReadHeadIn cuts a long file at the limit, refuses a FIFO without
// blocking on it, and cannot leave the root.
func TestReadHeadIn(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("0123456789"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if b, err := ReadHeadIn(root, "f", 4); err != nil || string(b) != "0123" {
		t.Errorf("head = %q, %v", b, err)
	}
	var odd *NotRegularError
	if _, err := ReadHeadIn(root, "fifo", 4); !errors.As(err, &odd) {
		t.Errorf("fifo: %v", err)
	}
	if _, err := ReadHeadIn(root, "../etc/passwd", 4); err == nil {
		t.Error("read outside the root")
	}
}
