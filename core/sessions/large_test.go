package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/store"
)

// hugeSession writes a sparse session file of 300 MiB for root into dir: a
// header, a hole (one line far over the line limit) and one user message.
func hugeSession(t *testing.T, dir, root, id string) string {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "2026-01-01T00-00-00-000Z_"+id+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(`{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-01-01T00:00:00.000Z","cwd":"` + root + `"}` + "\n")
	tail := "\n" + `{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"the big one","timestamp":1767225601000}}` + "\n"
	if _, err := f.WriteAt([]byte(tail), 300<<20-int64(len(tail))); err != nil {
		t.Fatal(err)
	}
	return path
}

// A session file too large to open is listed (its id, first message and
// counts, read as a stream) with the reason, only in its own project of a
// shared folder, and opening it says in one line which file, how large,
// the limit and what to do.
func TestTooLargeSessionIsListedAndRefused(t *testing.T) {
	e := setup(t, t.TempDir())
	shared := t.TempDir()
	e.st.InsertProject(context.Background(), store.ProjectRow{ID: "p2", Name: "two", Root: t.TempDir(), CreatedAt: 1})
	m := NewManager(e.st, Config{AgentDir: e.agent, SessionDir: shared})
	ctx := context.Background()
	path := hugeSession(t, shared, e.root, "huge")

	list, err := m.List(ctx, "p1")
	if err != nil || len(list) != 1 {
		t.Fatalf("List: %v %+v", err, list)
	}
	s := list[0]
	if s.ID != "huge" || s.FirstMessage != "the big one" || s.Entries != 1 || !s.Broken ||
		!strings.Contains(s.Problem, "300.0 MiB, more than pi-tui opens") {
		t.Errorf("summary %+v", s)
	}
	if other, _ := m.List(ctx, "p2"); len(other) != 0 {
		t.Errorf("another project lists %+v", other)
	}
	_, err = m.Open(ctx, "huge")
	if !errors.Is(err, pisession.ErrTooLarge) {
		t.Fatalf("Open = %v, want ErrTooLarge", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, path) || !strings.Contains(msg, "256.0 MiB") ||
		!strings.Contains(msg, "continue it in pi or start a new session") || strings.Count(msg, "left as it is") != 1 {
		t.Errorf("Open's error must be one line naming the file, size, limit and what to do: %q", msg)
	}
	if _, found, _ := m.Latest(ctx, "p1"); found {
		t.Error("Latest picked a session that does not open")
	}
}
