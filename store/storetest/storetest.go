// Package storetest gives tests a pi-tui database that is ready to open:
// the schema made by the real migrations once per test binary, copied into
// each test's data dir. Opening a fresh database runs every migration,
// which under the race detector is most of what a UI test's start costs.
package storetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/store"
)

// migrated holds the bytes of an empty database that store.Open made,
// once per test binary.
var migrated = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "storetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, store.FileName)
	st, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		return nil, err
	}
	// Close checkpoints the write-ahead log into the file: the file alone
	// is the whole database.
	if err := st.Close(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil, fmt.Errorf("%s-wal holds %d bytes after the close", path, fi.Size())
	}
	return os.ReadFile(path)
})

// Seed puts an empty, migrated database in dataDir, where store.Open (and
// host.Open over a paths.Places with that DataDir) finds it, as a file of
// mode 0600 in a folder of mode 0700, as store.Open makes them.
func Seed(t testing.TB, dataDir string) {
	t.Helper()
	data, err := migrated()
	if err != nil {
		t.Fatalf("storetest: make the template database: %v", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, store.FileName), data, 0o600); err != nil {
		t.Fatal(err)
	}
}
