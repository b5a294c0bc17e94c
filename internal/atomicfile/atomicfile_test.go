package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesAndLeavesNothingBehind(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, []byte("old"), 0o644)
	if err := Write(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(data) != "new" || fi.Mode().Perm() != 0o600 {
		t.Errorf("got %q %v", data, fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a failed write left files: %v", ents)
	}
}

func TestWriteInStaysInTheDirectory(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "d")
	os.Mkdir(dir, 0o755)
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The directory moves away after it was opened: the write follows the
	// directory, not the name.
	moved := filepath.Join(parent, "moved")
	os.Rename(dir, moved)
	os.Mkdir(dir, 0o755)
	if err := WriteIn(r, "f.txt", []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(moved, "f.txt"))
	fi, _ := os.Stat(filepath.Join(moved, "f.txt"))
	if string(data) != "new" || fi.Mode().Perm() != 0o640 {
		t.Errorf("got %q %v", data, fi)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the new directory of the same name got %v", ents)
	}
	if ents, _ := os.ReadDir(moved); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if err := WriteIn(r, bad, nil, 0o644); err == nil {
			t.Errorf("WriteIn(%q) accepted", bad)
		}
	}
}
