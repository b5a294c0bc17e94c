//go:build unix

package piengine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-tui/pi-tui/core/engine"
)

// countingPi is a pi that says version and appends a line to a file at
// each --version, so a test sees how often it was asked.
func countingPi(t *testing.T, version string) (path, asked string) {
	t.Helper()
	asked = filepath.Join(t.TempDir(), "asked")
	return script(t, "echo x >> "+asked+"\necho "+version), asked
}

func timesAsked(t *testing.T, asked string) int {
	t.Helper()
	b, err := os.ReadFile(asked)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "x")
}

func locator(path, file string) *Locator {
	return &Locator{VersionsFile: file, Getenv: func(k string) string {
		if k == EnvPi {
			return path
		}
		return ""
	}}
}

// confirm finds pi as a process would and has the launched pi confirm
// its version.
func confirm(t *testing.T, pi, file string) {
	t.Helper()
	l := locator(pi, file)
	p, err := l.Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Settle(p, p.Version); err != nil {
		t.Fatal(err)
	}
}

// A version the launched pi confirmed is not asked again by the next
// process (a new Locator on the same file); one it did not confirm is.
func TestVersionsFileSkipsTheAskOnceConfirmed(t *testing.T) {
	ctx := context.Background()
	pi, asked := countingPi(t, "1.6.0")
	file := filepath.Join(t.TempDir(), "data", "pi-versions.json")

	p, err := locator(pi, file).Find(ctx)
	if err != nil || p.Version != "1.6.0" || p.Cached {
		t.Fatalf("first find: %+v %v", p, err)
	}
	// The launched pi could not tell its version: nothing is kept.
	l := locator(pi, file)
	if p, err = l.Find(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Settle(p, ""); err != nil {
		t.Fatalf("settle unknown: %v", err)
	}
	if p, _ := locator(pi, file).Find(ctx); p.Cached || timesAsked(t, asked) != 3 {
		t.Fatalf("an unconfirmed version was kept: %+v, asked %d times", p, timesAsked(t, asked))
	}
	// It confirmed it: the next process finds it without asking.
	l = locator(pi, file)
	p, _ = l.Find(ctx)
	if err := l.Settle(p, "1.6.0"); err != nil {
		t.Fatal(err)
	}
	before := timesAsked(t, asked)
	p, err = locator(pi, file).Find(ctx)
	if err != nil || !p.Cached || p.Version != "1.6.0" || timesAsked(t, asked) != before {
		t.Fatalf("kept find: %+v %v, asked %d times (before %d)", p, err, timesAsked(t, asked), before)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the versions file: %v %v", fi, err)
	}
}

// A kept version the running pi contradicts (pi replaced under a wrapper
// whose own file did not change) is forgotten: ErrVersionChanged, and the
// next Find, in this process or another, asks pi.
func TestVersionsFileForgetsAVersionPiContradicts(t *testing.T) {
	ctx := context.Background()
	pi, asked := countingPi(t, "1.6.0")
	file := filepath.Join(t.TempDir(), "pi-versions.json")
	confirm(t, pi, file)

	l := locator(pi, file)
	p, _ := l.Find(ctx)
	if !p.Cached {
		t.Fatal("not kept")
	}
	err := l.Settle(p, "1.7.2")
	if !errors.Is(err, engine.ErrVersionChanged) || !strings.Contains(err.Error(), "was 1.6.0 and now runs 1.7.2") {
		t.Fatalf("settle = %v", err)
	}
	before := timesAsked(t, asked)
	if p, _ := l.Find(ctx); p.Cached || timesAsked(t, asked) != before+1 {
		t.Errorf("this process did not ask again: %+v", p)
	}
	if p, _ := locator(pi, file).Find(ctx); p.Cached {
		t.Errorf("the file still holds the contradicted version: %+v", p)
	}
	// A cached version whose pi says nothing is not trusted either.
	confirm(t, pi, file)
	l = locator(pi, file)
	p, _ = l.Find(ctx)
	if err := l.Settle(p, ""); !errors.Is(err, engine.ErrVersionChanged) {
		t.Errorf("settle of a silent pi on a kept version = %v", err)
	}
}

// A pi changed in place (another size, time or inode) is asked again.
func TestVersionsFileIsKeyedByTheFileStamp(t *testing.T) {
	ctx := context.Background()
	pi, asked := countingPi(t, "1.6.0")
	file := filepath.Join(t.TempDir(), "pi-versions.json")
	confirm(t, pi, file)
	body, _ := os.ReadFile(pi)
	os.WriteFile(pi, []byte(strings.Replace(string(body), "1.6.0", "1.6.10", 1)), 0o755)
	before := timesAsked(t, asked)
	p, err := locator(pi, file).Find(ctx)
	if err != nil || p.Cached || p.Version != "1.6.10" || timesAsked(t, asked) != before+1 {
		t.Fatalf("find after the upgrade: %+v %v", p, err)
	}
}

// A versions file that is garbage, huge, a directory or a FIFO is no
// entries: pi is asked, and nothing hangs or fails.
func TestVersionsFileOddFiles(t *testing.T) {
	ctx := context.Background()
	for name, make := range map[string]func(string){
		"garbage":   func(f string) { os.WriteFile(f, []byte("{not json\x00"), 0o600) },
		"bad entry": func(f string) { os.WriteFile(f, []byte(`[{"path":"","version":"x"}]`), 0o600) },
		"huge":      func(f string) { os.WriteFile(f, []byte("["+strings.Repeat(" ", versionsMaxBytes)+"]"), 0o600) },
		"directory": func(f string) { os.Mkdir(f, 0o700) },
		"fifo":      func(f string) { mkfifo(t, f) },
	} {
		t.Run(name, func(t *testing.T) {
			pi, asked := countingPi(t, "1.6.0")
			file := filepath.Join(t.TempDir(), "pi-versions.json")
			make(file)
			p, err := locator(pi, file).Find(ctx)
			if err != nil || p.Cached || p.Version != "1.6.0" || timesAsked(t, asked) != 1 {
				t.Fatalf("%+v %v, asked %d", p, err, timesAsked(t, asked))
			}
		})
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
}
