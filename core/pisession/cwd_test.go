package pisession

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SetCwd changes the header's cwd and nothing else: the header's other
// members (unknown ones too) and every entry keep their bytes, the file
// keeps its mode, and both this Session and another one open on the file
// go on appending to the new file. A session not yet written changes in
// memory and is created with the new cwd.
func TestSetCwdRewritesOnlyTheHeadersCwd(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	body := `{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1,"mood":"curious"}}
{"type":"hologram","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"2026-01-01T00:00:02.000Z"}
`
	writeFile(t, path, `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p","futureHeader":{"x":1}}`+"\n"+body)
	s := mustOpen(t, path)
	other := mustOpen(t, path)
	if err := s.SetCwd(ctx, "/data/worktrees/p/1234 \"x\""); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/data/worktrees/p/1234 \"x\"","futureHeader":{"x":1}}` + "\n" + body
	if got := readFile(t, path); got != want {
		t.Fatalf("file after SetCwd:\n%s\nwant:\n%s", got, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's 0600", fi.Mode().Perm())
	}
	if h := s.Header(); h.Cwd != `/data/worktrees/p/1234 "x"` {
		t.Errorf("header cwd = %q", h.Cwd)
	}
	if err := s.SetCwd(ctx, `/data/worktrees/p/1234 "x"`); err != nil {
		t.Errorf("SetCwd to the cwd it has: %v", err)
	}
	a := must(t)(s.AppendMessage(ctx, userMsg("from s")))
	b := must(t)(other.AppendMessage(ctx, userMsg("from other")))
	if b.ParentID != a.ID {
		t.Errorf("the other Session did not read the rewritten file: its entry's parent is %s, want %s", b.ParentID, a.ID)
	}
	if reopened := mustOpen(t, path); reopened.Header().Cwd != `/data/worktrees/p/1234 "x"` || reopened.Len() != 4 {
		t.Errorf("reopened: cwd %q, %d entries", reopened.Header().Cwd, reopened.Len())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left beside the session: %v", ents)
	}

	d, _ := newSession(t, true)
	if err := d.SetCwd(ctx, "/wt"); err != nil {
		t.Fatal(err)
	}
	must(t)(d.AppendMessage(ctx, userMsg("q")))
	if err := d.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(readFile(t, d.File()), "\n"); !strings.Contains(first, `"cwd":"/wt"`) {
		t.Errorf("a deferred session's header: %s", first)
	}
}
