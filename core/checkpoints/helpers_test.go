package checkpoints

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rig is a project folder, a session file and a store in a data dir.
type rig struct {
	t     *testing.T
	root  string
	store *Store
	rec   *Recorder
	file  string
	order []string // the session's entries, as calls are made
	calls int
}

func newRig(t *testing.T, lim Limits) *rig {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	root, _ = filepath.EvalSymlinks(root)
	file := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(file, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := Open(filepath.Join(dir, "data", "checkpoints"), lim)
	return &rig{t: t, root: root, store: st, rec: st.Recorder("s1", file, root), file: file}
}

func (r *rig) write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) read(rel string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(rel)))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// bash runs a real bash command in the project as a tool call of a new
// entry, bracketed as a runtime brackets it.
func (r *rig) bash(cmd string) Result {
	r.t.Helper()
	entry := r.entry()
	m := r.rec.Before(context.Background(), Call{ToolCallID: "call-" + entry, Tool: "bash", Entry: entry})
	c := exec.Command("bash", "-c", cmd)
	c.Dir = r.root
	if out, err := c.CombinedOutput(); err != nil {
		r.t.Fatalf("bash %q: %v\n%s", cmd, err, out)
	}
	return m.After(context.Background())
}

// writeTool writes a file as the write tool does, bracketed with its path.
func (r *rig) writeTool(rel, content string) Result {
	r.t.Helper()
	entry := r.entry()
	m := r.rec.Before(context.Background(), Call{ToolCallID: "call-" + entry, Tool: "write", Entry: entry, Paths: []string{filepath.Join(r.root, rel)}})
	r.write(rel, content)
	return m.After(context.Background())
}

func (r *rig) entry() string {
	r.calls++
	id := fmt.Sprintf("e%03d", r.calls)
	r.order = append(r.order, id)
	return id
}

func (r *rig) info() SessionInfo { return SessionInfo{ID: "s1", Order: r.order} }

func (r *rig) changes() []Change {
	r.t.Helper()
	cs, err := r.store.Changes(context.Background(), r.info())
	if err != nil {
		r.t.Fatal(err)
	}
	return cs
}

// summary is "n status path +a -r state" per change, for comparing.
func summary(cs []Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, strings.Join([]string{strconv.Itoa(c.N), c.Status, c.Path, "+" + strconv.Itoa(c.Added), "-" + strconv.Itoa(c.Removed), c.State}, " "))
	}
	return out
}

// ageAll sets every file under dir two hours back, past the grace age.
func ageAll(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-2 * time.Hour)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}
