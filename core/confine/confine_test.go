package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func tempRoot(t *testing.T) string {
	t.Helper()
	d, _ := filepath.EvalSymlinks(t.TempDir())
	return d
}

// A path that leaves the root, lexically, through a link or through a
// link to nothing, is refused; one inside is made canonical, whether it
// exists or not.
func TestPathRefusesEscapes(t *testing.T) {
	root := tempRoot(t)
	outside := tempRoot(t)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Symlink(outside, filepath.Join(root, "out"))
	os.Symlink(filepath.Join(outside, "nothing"), filepath.Join(root, "dangling"))
	os.Mkdir(filepath.Join(root, "in"), 0o755)
	for _, p := range []string{"../x", "/etc/passwd", "out/secret", "out/new.txt", "dangling", "in/../../x"} {
		if _, err := Path(root, p); err == nil {
			t.Errorf("Path(%q) allowed an escape", p)
		}
	}
	for p, want := range map[string]string{"in/new.go": filepath.Join(root, "in/new.go"), ".": root, "": root, root + "/in": filepath.Join(root, "in")} {
		if got, err := Path(root, p); err != nil || got != want {
			t.Errorf("Path(%q) = %q, %v", p, got, err)
		}
	}
}

// ReadPreview reads a file inside the root, bounded; a file that is not
// there says so as fs.ErrNotExist (the approval shows a new file), and a
// link out of the root reads nothing. (A FIFO, which must not hang it,
// is core/agent's fifo_test, with the tools.)
func TestReadPreview(t *testing.T) {
	root := tempRoot(t)
	outside := tempRoot(t)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha beta\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("TOPSECRET"), 0o644)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "leak"))
	if data, err := ReadPreview(root, "a.txt", 5); err != nil || string(data) != "alpha" {
		t.Errorf("ReadPreview(a.txt, 5) = %q, %v", data, err)
	}
	if _, err := ReadPreview(root, "new.txt", 5); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	if data, err := ReadPreview(root, "leak", 100); err == nil || len(data) > 0 {
		t.Errorf("a link out read %q, %v", data, err)
	}
}
