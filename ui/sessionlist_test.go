package ui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// A session file pi-tui cannot use is listed with a one-line reason; the
// session list still opens and the other sessions stay usable.
func TestBrokenSessionFileIsListedWithItsReason(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	dir := pisession.SessionsDir(filepath.Join(f.home, ".pi", "agent"), filepath.Join(f.home, "proj"))
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "2026-12-01T00-00-00-000Z_broken.jsonl"), []byte("this is not a session\n"), 0o600)
	s := f.run(120, 30)
	s.waitFor("proj")
	s.keys("enter", "o")
	s.waitFor("2026-12-01T00-00-00-000Z_broken.jsonl", "⚠")
	s.final()
}
