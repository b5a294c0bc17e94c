package agentsmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func tempRoot(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLoadSaveRoundTripKeepsMode(t *testing.T) {
	root := tempRoot(t)
	p := filepath.Join(root, "AGENTS.md")
	os.WriteFile(p, []byte("old"), 0o600)
	d, err := Load(root, "AGENTS.md")
	if err != nil || d.Content != "old" || !d.Exists {
		t.Fatalf("Load = %+v, %v", d, err)
	}
	d, err = Save(d, "new text\n", false)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(data) != "new text\n" || fi.Mode().Perm() != 0o600 {
		t.Errorf("on disk: %q %v", data, fi.Mode())
	}
	ents, _ := os.ReadDir(root)
	if len(ents) != 1 {
		t.Errorf("temp files left behind: %v", ents)
	}
	// Saving again on top of our own save needs no overwrite.
	if _, err := Save(d, "third", false); err != nil {
		t.Fatal(err)
	}
}

func TestMissingFileLoadsEmptyAndIsCreated(t *testing.T) {
	root := tempRoot(t)
	d, err := Load(root, "AGENTS.md")
	if err != nil || d.Exists || d.Content != "" {
		t.Fatalf("Load = %+v, %v", d, err)
	}
	if _, err := Save(d, "hello", false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "AGENTS.md")); string(data) != "hello" {
		t.Errorf("created %q", data)
	}
}

func TestChangeOnDiskIsNoticed(t *testing.T) {
	root := tempRoot(t)
	p := filepath.Join(root, "AGENTS.md")
	os.WriteFile(p, []byte("v1"), 0o644)
	d, _ := Load(root, "AGENTS.md")
	os.WriteFile(p, []byte("someone else"), 0o644)
	if changed, _ := d.ChangedOnDisk(); !changed {
		t.Error("change not noticed")
	}
	if _, err := Save(d, "mine", false); !errors.Is(err, ErrChangedOnDisk) {
		t.Fatalf("Save = %v, want ErrChangedOnDisk", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "someone else" {
		t.Errorf("refused save wrote %q", data)
	}
	if _, err := Save(d, "mine", true); err != nil {
		t.Fatal(err)
	}
	// Created by someone else after loading a missing file.
	q := filepath.Join(root, "sub")
	os.Mkdir(q, 0o755)
	e, _ := Load(q, "AGENTS.md")
	os.WriteFile(filepath.Join(q, "AGENTS.md"), []byte("theirs"), 0o644)
	if _, err := Save(e, "mine", false); !errors.Is(err, ErrChangedOnDisk) {
		t.Errorf("created behind our back: %v", err)
	}
}

func TestLinksAndOddFiles(t *testing.T) {
	root := tempRoot(t)
	outside := tempRoot(t)
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("outside"), 0o644)

	// A link inside the root: writes go to its target, the link stays.
	os.WriteFile(filepath.Join(root, "real.md"), []byte("real"), 0o644)
	os.Symlink("real.md", filepath.Join(root, "AGENTS.md"))
	d, err := Load(root, "AGENTS.md")
	if err != nil || d.Content != "real" {
		t.Fatalf("inside link: %+v %v", d, err)
	}
	if _, err := Save(d, "edited", false); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(filepath.Join(root, "AGENTS.md")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	if data, _ := os.ReadFile(filepath.Join(root, "real.md")); string(data) != "edited" {
		t.Errorf("link target = %q", data)
	}

	// Links leaving the root, to a file and dangling.
	sub := filepath.Join(root, "out")
	os.Mkdir(sub, 0o755)
	os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(sub, "AGENTS.md"))
	if _, err := Load(sub, "AGENTS.md"); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("link out: %v", err)
	}
	dang := filepath.Join(root, "dang")
	os.Mkdir(dang, 0o755)
	os.Symlink(filepath.Join(outside, "new.md"), filepath.Join(dang, "AGENTS.md"))
	if _, err := Load(dang, "AGENTS.md"); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("dangling link out: %v", err)
	}

	// A FIFO, a directory and invalid UTF-8 are refused with a reason.
	fifo := filepath.Join(root, "fifo")
	os.Mkdir(fifo, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifo, "AGENTS.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(fifo, "AGENTS.md"); err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("fifo: %v", err)
	}
	dir := filepath.Join(root, "dir")
	os.MkdirAll(filepath.Join(dir, "AGENTS.md"), 0o755)
	if _, err := Load(dir, "AGENTS.md"); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: %v", err)
	}
	bad := filepath.Join(root, "bad")
	os.Mkdir(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "AGENTS.md"), []byte("ok \xff\xfe"), 0o644)
	if _, err := Load(bad, "AGENTS.md"); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("invalid UTF-8: %v", err)
	}
}
