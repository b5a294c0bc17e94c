package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		root, p string
		want    bool
	}{
		{"/a/b", "/a/b", true}, {"/a/b", "/a/b/c", true}, {"/a/b", "/a/bc", false},
		{"/a/b", "/a", false}, {"/", "/etc", true}, {"/", "/", true},
	} {
		if got := Within(c.root, c.p); got != c.want {
			t.Errorf("Within(%q, %q) = %v", c.root, c.p, got)
		}
	}
}

func TestPlainError(t *testing.T) {
	_, err := os.Open("/nonexistent/x")
	if got := PlainError(err); !errors.Is(got, fs.ErrNotExist) || got.Error() != "no such file or directory" {
		t.Errorf("PlainError = %v", got)
	}
	other := errors.New("x")
	if PlainError(other) != other {
		t.Error("a plain error was changed")
	}
}

func TestOpenRegularRefusesAFIFOWithoutWaiting(t *testing.T) {
	dir := t.TempDir()
	fifo := dir + "/pipe"
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	_, fi, err := OpenRegular(fifo) // would block without O_NONBLOCK: nobody writes
	var nr *NotRegularError
	if !errors.As(err, &nr) || fi == nil || err.Error() != "not a regular file; it is a named pipe (FIFO)" {
		t.Errorf("OpenRegular(FIFO) = %v, %v", fi, err)
	}
	os.WriteFile(dir+"/f", []byte("12345"), 0o644)
	if data, _, err := ReadRegular(dir+"/f", 5); err != nil || string(data) != "12345" {
		t.Errorf("ReadRegular = %q, %v", data, err)
	}
	if _, _, err := ReadRegular(dir+"/f", 4); err == nil {
		t.Error("a file over the limit was read")
	}
	if _, _, err := ReadRegular(dir+"/missing", 4); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing = %v", err)
	}
}
