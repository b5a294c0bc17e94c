package sessionimport

import (
	"bufio"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/e2egate"
)

// TestHugeLineIsNamedAndSkipped puts a 100 MB line in the middle of a
// Claude Code file: it is named by file and line, and the turns on either
// side of it are imported.
func TestHugeLineIsNamedAndSkipped(t *testing.T) {
	e2egate.Require(t, "writes a 100 MB file")
	r := newRig(t)
	dir := filepath.Join(r.loc.Claude, "projects", "-home-user-src-proj")
	path := filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(`{"parentUuid":null,"cwd":"/home/user/src/proj","type":"user","message":{"role":"user","content":"before the big line"},"uuid":"u1","timestamp":"2025-07-01T00:00:00Z"}` + "\n")
	w.WriteString(`{"parentUuid":"u1","cwd":"/home/user/src/proj","type":"user","message":{"role":"user","content":"`)
	chunk := strings.Repeat("x", 1<<20)
	for range 100 {
		w.WriteString(chunk)
	}
	w.WriteString(`"},"uuid":"u2"}` + "\n")
	w.WriteString(`{"parentUuid":"u2","cwd":"/home/user/src/proj","type":"assistant","message":{"id":"m3","role":"assistant","model":"claude-x","content":[{"type":"text","text":"after the big line"}]},"uuid":"u3","timestamp":"2025-07-01T00:00:02Z"}` + "\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	res := r.run(t, Options{Sources: []Source{Claude}})
	var named []string
	for _, p := range res.Problems {
		if p.File == path {
			named = append(named, p.String())
		}
	}
	if len(named) != 1 || !strings.Contains(named[0], ".jsonl:2: the line is 100.0 MB long") {
		t.Fatalf("the 100 MB line was reported as %q, want one problem naming line 2 and its size", named)
	}
	s, ok := bySource(res)["11111111-2222-4333-8444-555555555555"]
	if !ok {
		t.Fatal("the session with the huge line was not imported")
	}
	if got := contextOf(t, s.File); strings.Join(got, "|") != "user: before the big line|assistant: after the big line" {
		t.Errorf("the model would see %q, want the turns before and after the huge line", got)
	}
}

// TestDatabaseProblemsLeaveTheRest: a damaged opencode database, and one
// locked by a writer, each get one line; the other sources are imported.
func TestDatabaseProblemsLeaveTheRest(t *testing.T) {
	t.Run("damaged", func(t *testing.T) {
		r := newRig(t)
		dbPath := filepath.Join(r.loc.OpenCode, "opencode.db")
		os.MkdirAll(r.loc.OpenCode, 0o755)
		os.WriteFile(dbPath, []byte(strings.Repeat("this is not SQLite ", 500)), 0o644)
		res := r.run(t, Options{})
		checkDBProblem(t, res, dbPath, "damaged")
	})
	t.Run("locked", func(t *testing.T) {
		r := newRig(t)
		dbPath := filepath.Join(r.loc.OpenCode, "opencode.db")
		db := opencodeDB(t, dbPath)
		fillOpenCode(t, db)
		db.Close()
		// A writer that holds the whole database, as opencode does while
		// it migrates or vacuums it.
		w, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=journal_mode(WAL)&_pragma=locking_mode(EXCLUSIVE)")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		w.SetMaxOpenConns(1)
		ctx := context.Background()
		conn, err := w.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "UPDATE session SET title = 'x'"); err != nil {
			t.Fatal(err)
		}
		res := r.run(t, Options{})
		checkDBProblem(t, res, dbPath, "locked")
		conn.ExecContext(ctx, "ROLLBACK")
	})
}

func checkDBProblem(t *testing.T, res Result, dbPath, word string) {
	t.Helper()
	var got []string
	for _, p := range res.Problems {
		if p.File == dbPath {
			got = append(got, p.String())
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], word) {
		t.Errorf("the database was reported as %q, want one line saying it is %s", got, word)
	}
	n := 0
	for _, s := range res.Sessions {
		if s.Source != OpenCode {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d sessions of the other sources were imported, want all 4", n)
	}
}

// TestUnmatchedFoldersAreListed: a session run where no project is gets
// listed by its folder and is not written; --project keeps to one project.
func TestUnmatchedFoldersAreListed(t *testing.T) {
	r := newRig(t)
	r.proj.Root = "/home/user/src/other"
	res := r.run(t, Options{DryRun: false})
	if len(res.Sessions) != 0 {
		t.Errorf("sessions of folders no project holds were written: %s", jsonOf(res.Sessions))
	}
	if len(res.Unmatched) != 2 || res.Unmatched[0].Cwd != "/home/user/src/proj" || res.Unmatched[0].Sessions != 3 || res.Unmatched[1].Cwd != "/home/user/src/proj/sub" {
		t.Errorf("unmatched = %s, want /home/user/src/proj (3 sessions) and /home/user/src/proj/sub (1)", jsonOf(res.Unmatched))
	}
	if _, err := os.Stat(r.proj.Dir); !os.IsNotExist(err) {
		t.Errorf("the project's session folder was made: %v", err)
	}

	r2 := newRig(t)
	dry := r2.run(t, Options{DryRun: true})
	if len(dry.Sessions) != 4 {
		t.Errorf("a dry run listed %d sessions, want 4", len(dry.Sessions))
	}
	if _, err := os.Stat(r2.proj.Dir); !os.IsNotExist(err) {
		t.Errorf("a dry run wrote the session folder: %v", err)
	}
	only := r2.run(t, Options{Only: "another"})
	if len(only.Sessions) != 0 {
		t.Errorf("--project of another project imported %d sessions", len(only.Sessions))
	}
}
