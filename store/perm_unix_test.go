//go:build unix

package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// writeAndStat opens a database under dir/data (a folder that does not
// exist yet), writes to it and, while it is open, returns the permission
// bits of the data dir, the database and its -wal and -shm files.
func writeAndStat(t *testing.T, dir string) map[string]os.FileMode {
	t.Helper()
	data := filepath.Join(dir, "data")
	path := filepath.Join(data, FileName)
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.CompareAndSwapKV(context.Background(), "ns", "k", nil, "secret notes"); err != nil {
		t.Fatal(err)
	}
	modes := map[string]os.FileMode{}
	for _, p := range []string{data, path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatalf("after a write: %v", err)
		}
		modes[filepath.Base(p)] = fi.Mode().Perm()
	}
	return modes
}

func wantPrivate(t *testing.T, modes map[string]os.FileMode) {
	t.Helper()
	for name, want := range map[string]os.FileMode{"data": 0o700, FileName: 0o600, FileName + "-wal": 0o600, FileName + "-shm": 0o600} {
		if modes[name] != want {
			t.Errorf("%s has mode %#o, want %#o", name, modes[name], want)
		}
	}
}

// The database holds project memory and paths: only its owner may read
// it, whatever the umask. The umask is process-wide, so the umask-0 case
// runs in a child process of this test binary.
func TestDatabaseFilesArePrivate(t *testing.T) {
	if dir := os.Getenv("PI_TUI_TEST_UMASK0_DIR"); dir != "" {
		syscall.Umask(0)
		wantPrivate(t, writeAndStat(t, dir))
		return
	}
	wantPrivate(t, writeAndStat(t, t.TempDir()))

	cmd := exec.Command(os.Args[0], "-test.run=^TestDatabaseFilesArePrivate$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PI_TUI_TEST_UMASK0_DIR="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("with umask 0: %v\n%s", err, out)
	}
}

// A database that an older pi-tui (or a copy) left readable by others is
// made private when it is opened.
func TestOpenTightensExistingDatabaseFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if _, err := os.Stat(p); os.IsNotExist(err) {
			os.WriteFile(p, nil, 0o644)
		}
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err = Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v; want mode 0600", filepath.Base(p), fi.Mode().Perm(), err)
		}
	}
}
