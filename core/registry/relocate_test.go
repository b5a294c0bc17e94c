package registry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/store"
)

// relocFixture is a registered project with sessions, memory, trust, a
// pin and a group, whose folder the test then moves.
type relocFixture struct {
	reg      *Registry
	st       *store.Store
	agentDir string
	old, new string // canonical roots before and after the move
	p        Project
	files    map[string]string // session file name → content before
}

func sessionFile(cwd string, i, lines int) string {
	var b strings.Builder
	// A header as pi writes it, plus spacing pi does not write, which must
	// survive as it is.
	if i%2 == 0 {
		fmt.Fprintf(&b, `{"type":"session","version":3,"id":"0190a0b0-0000-7000-8000-%012d","timestamp":"2026-12-01T05:26:26.631Z","cwd":%q}`+"\n", i, cwd)
	} else {
		fmt.Fprintf(&b, `{ "type": "session", "cwd" : %q ,"version":3,"id":"0190a0b0-0000-7000-8000-%012d","timestamp":"2026-12-01T05:26:26.631Z"}`+"\n", cwd, i)
	}
	for j := range lines {
		fmt.Fprintf(&b, `{"type":"message","id":"%08x","parentId":null,"timestamp":"2026-12-01T05:26:27.000Z","message":{"role":"user","content":"the cwd was %s, line %d","timestamp":1}}`+"\n", j, cwd, j)
	}
	return b.String()
}

func newRelocFixture(t testing.TB, sessions, memBytes int) *relocFixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	agentDir := t.TempDir()
	reg := NewRegistry(st, agentDir)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	f := &relocFixture{reg: reg, st: st, agentDir: agentDir, old: filepath.Join(base, "src", "api"), new: filepath.Join(base, "work", "api-moved"), files: map[string]string{}}
	os.MkdirAll(f.old, 0o755)
	os.MkdirAll(filepath.Dir(f.new), 0o755)
	os.WriteFile(filepath.Join(f.old, "AGENTS.md"), []byte("rules"), 0o644)
	p, _, err := reg.Add(ctx, f.old, "api", true)
	if err != nil {
		t.Fatal(err)
	}
	reg.SetPinned(ctx, p.ID, true)
	reg.SetGroup(ctx, p.ID, "work")
	st.InsertSession(ctx, "s-indexed", p.ID, "")
	mem := memory.NewService(st)
	m, _ := mem.Load(ctx, f.old)
	var entries []memory.Entry
	for n := 0; n < memBytes; n += 1000 {
		entries = append(entries, memory.Entry{ID: fmt.Sprint(n), Content: strings.Repeat("m", min(998, memBytes-n-2))})
	}
	if _, err := mem.Save(ctx, m, entries); err != nil {
		t.Fatal(err)
	}
	dir := pisession.SessionsDir(agentDir, f.old)
	os.MkdirAll(dir, 0o700)
	for i := range sessions {
		name := fmt.Sprintf("2026-12-01T05-26-26-631Z_%04d.jsonl", i)
		body := sessionFile(f.old, i, 20)
		f.files[name] = body
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.p, _ = reg.Get(ctx, p.ID)
	return f
}

func TestRelocateMovesEverythingWithTheProject(t *testing.T) {
	ctx := context.Background()
	f := newRelocFixture(t, 3, 2000)
	memBefore, _ := memory.NewService(f.st).Load(ctx, f.old)

	if _, err := f.reg.Relocate(ctx, f.p.ID, filepath.Dir(f.new), RelocateOptions{}); !errors.As(err, new(*StillThereError)) {
		t.Fatalf("relocating a project whose folder is there: %v", err)
	}
	if err := os.Rename(f.old, f.new); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.reg.Get(ctx, f.p.ID); !p.Missing {
		t.Fatal("the moved project is not missing")
	}
	res, err := f.reg.Relocate(ctx, f.p.ID, f.new, RelocateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Project
	if p.Root != f.new || p.Missing || !p.Pinned || p.Group != "work" || !p.Trusted || p.Sessions != 1 || p.ID != f.p.ID || res.Sessions != 3 || len(res.Problems) > 0 {
		t.Errorf("after relocate: %+v, %+v", p, res)
	}
	// Memory: the same value under the new key; the old key is gone.
	mem := memory.NewService(f.st)
	if m, _ := mem.Load(ctx, f.new); m.Content != memBefore.Content || m.Content == "" {
		t.Errorf("memory did not follow: %d bytes", len(m.Content))
	}
	if _, found, _ := f.st.GetKV(ctx, memory.Namespace, f.old); found {
		t.Error("the old memory key is still there")
	}
	// Sessions: the folder moved with its files unchanged.
	if _, err := os.Stat(pisession.SessionsDir(f.agentDir, f.old)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old session folder is still there: %v", err)
	}
	for name, before := range f.files {
		got, err := os.ReadFile(filepath.Join(pisession.SessionsDir(f.agentDir, f.new), name))
		if err != nil || string(got) != before {
			t.Errorf("%s changed or is gone: %v", name, err)
		}
	}
	// Trust: the decision moved.
	d, _ := f.reg.Trust().Read(ctx)
	if d[f.old] != Undecided || d[f.new] != Trusted {
		t.Errorf("trust.json after relocate: %v", d)
	}
	// Sessions open as the project's through pi's own listing.
	sums, err := pisession.List(ctx, pisession.SessionsDir(f.agentDir, f.new), pisession.NewMemIndex(), pisession.Options{ReadOnly: true})
	if err != nil || len(sums) != 3 {
		t.Fatalf("listing moved sessions: %d %v", len(sums), err)
	}
	for _, s := range sums {
		if s.Problem != "" {
			t.Errorf("moved session %s: problem %q", s.Path, s.Problem)
		}
	}
}

func TestRelocateRefusesATakenFolderAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	f := newRelocFixture(t, 1, 100)
	other := filepath.Join(filepath.Dir(f.new), "other")
	os.MkdirAll(other, 0o755)
	q, _, _ := f.reg.Add(ctx, other, "", false)
	os.RemoveAll(f.old)
	if _, err := f.reg.Relocate(ctx, f.p.ID, other, RelocateOptions{}); err == nil || !strings.Contains(err.Error(), q.ID) {
		t.Errorf("relocating onto another project: %v", err)
	}
	if _, err := f.reg.Relocate(ctx, f.p.ID, filepath.Join(other, "nope"), RelocateOptions{}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("relocating to nowhere: %v", err)
	}
	p, _ := f.reg.Get(ctx, f.p.ID)
	if p.Root != f.old || p.MemoryEntries == 0 {
		t.Errorf("a refused relocate changed the project: %+v", p)
	}
	if _, err := os.Stat(pisession.SessionsDir(f.agentDir, f.old)); err != nil {
		t.Errorf("a refused relocate moved the sessions: %v", err)
	}
}

// With one session folder for every project (pi's sessionDir), nothing
// moves; the moved project's files get the new cwd, the others' are not
// touched.
func TestRelocateInASharedSessionFolder(t *testing.T) {
	ctx := context.Background()
	f := newRelocFixture(t, 0, 100)
	shared := t.TempDir()
	mine := sessionFile(f.old, 1, 3)
	theirs := sessionFile("/elsewhere", 2, 3)
	os.WriteFile(filepath.Join(shared, "a.jsonl"), []byte(mine), 0o600)
	os.WriteFile(filepath.Join(shared, "b.jsonl"), []byte(theirs), 0o600)
	os.Rename(f.old, f.new)
	res, err := f.reg.Relocate(ctx, f.p.ID, f.new, RelocateOptions{SessionsDir: func(string) string { return shared }})
	if err != nil || res.Sessions != 1 {
		t.Fatalf("relocate: %+v %v", res, err)
	}
	if got, _ := os.ReadFile(filepath.Join(shared, "b.jsonl")); string(got) != theirs {
		t.Error("another project's session was changed")
	}
	// Only the header's cwd changed, spacing and field order kept.
	head, rest, _ := strings.Cut(mine, "\n")
	want := strings.Replace(head, fmt.Sprintf("%q", f.old), fmt.Sprintf("%q", f.new), 1) + "\n" + rest
	if got, _ := os.ReadFile(filepath.Join(shared, "a.jsonl")); string(got) != want {
		t.Errorf("the moved project's session:\n got %q\nwant %q", got, want)
	}
	ents, _ := os.ReadDir(shared)
	if len(ents) != 2 {
		t.Errorf("temp files left behind: %v", ents)
	}
}

// BenchmarkRelocate moves a project with 500 sessions and 32 KiB of
// memory to a new folder and back. Target: ≤ 50 ms/op per relocation.
func BenchmarkRelocate(b *testing.B) {
	ctx := context.Background()
	f := newRelocFixture(b, 500, 32000)
	from, to := f.old, f.new
	b.ReportAllocs()
	for b.Loop() {
		if err := os.Rename(from, to); err != nil {
			b.Fatal(err)
		}
		if _, err := f.reg.Relocate(ctx, f.p.ID, to, RelocateOptions{}); err != nil {
			b.Fatal(err)
		}
		from, to = to, from
	}
}
