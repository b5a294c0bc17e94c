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
