package pisession

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// referenceDir returns shared/pi-reference/sessions, which sits beside the
// repository (<clone>/../shared), or skips the test when it is absent.
func referenceDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the package; cannot find shared/ beside the repository")
		}
		dir = parent
	}
	ref := filepath.Join(dir, "..", "shared", "pi-reference", "sessions")
	if _, err := os.Stat(ref); err != nil {
		t.Skipf("pi's reference sessions are not at %s (shared/ is not beside the repository): %v", ref, err)
	}
	return ref
}

// clock is a test clock that moves one millisecond per reading.
type clock struct{ t time.Time }

func newClock() *clock { return &clock{t: time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

func writeFile(t testing.TB, path string, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustOpen(t testing.TB, path string) *Session {
	t.Helper()
	s, err := Open(ctxT(t), path, Options{})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ids(es []Entry) string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.ID)
	}
	return b.String()
}

// contextTexts renders a context as "role:text" items for comparison.
func contextTexts(t testing.TB, c Context) []string {
	t.Helper()
	var out []string
	for _, m := range c.Messages {
		msg, err := m.Message()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.WriteString(msg.Role + ":")
		if msg.Content.IsText {
			b.WriteString("(string)" + msg.Content.Text)
		}
		for i, p := range msg.Content.Parts {
			if i > 0 {
				b.WriteString("|")
			}
			switch p.Type {
			case PartText:
				b.WriteString(p.Text)
			case PartToolCall:
				b.WriteString("toolCall " + p.Name)
			default:
				b.WriteString(p.Type)
			}
		}
		out = append(out, b.String())
	}
	return out
}
