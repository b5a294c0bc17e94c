package sessionimport

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
)

const projRoot = "/home/user/src/proj"

// copyTree copies the fixture home into a temporary folder.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(to)
		if err != nil {
			return err
		}
		defer out.Close()
		_, err = io.Copy(out, in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// treeHash is every file under dir with its size, time and contents: what
// must not change when a source is only read.
func treeHash(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(path)
		st, _ := os.Stat(path)
		h := sha256.Sum256(b)
		out[path] = hex.EncodeToString(h[:]) + st.ModTime().String()
		return nil
	})
	return out
}

// rig is a home with the fixture sources and one project for them.
type rig struct {
	home string
	loc  Locations
	proj Project
}

func newRig(t *testing.T) *rig {
	t.Helper()
	home := t.TempDir()
	copyTree(t, "testdata/home", home)
	agent := t.TempDir()
	r := &rig{home: home, loc: DefaultLocations(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})}
	r.proj = Project{ID: "p1", Name: "proj", Root: projRoot, Dir: pisession.SessionsDir(agent, projRoot)}
	return r
}

func (r *rig) run(t *testing.T, opts Options) Result {
	t.Helper()
	opts.Projects = append(opts.Projects, r.proj)
	res, err := Import(context.Background(), r.loc, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// opencodeDB makes an opencode 1.2 database with the tables and columns
// opencode's schema has (the ones read, and others beside them).
func opencodeDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL)`,
		`CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL REFERENCES project(id) ON DELETE CASCADE, workspace_id text, parent_id text,
			slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL, share_url text, cost real NOT NULL DEFAULT 0,
			time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer)`,
		`CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE,
			time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`,
		`CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id)`,
		`CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id) ON DELETE CASCADE, session_id text NOT NULL,
			time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`,
		`CREATE INDEX part_message_id_id_idx ON part (message_id, id)`,
		`INSERT INTO project VALUES ('prj1', '/home/user/src/proj', 1, 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func addOCSession(t *testing.T, db *sql.DB, id, parent, dir, title string, at int64) {
	t.Helper()
	var p any
	if parent != "" {
		p = parent
	}
	if _, err := db.Exec(`INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'prj1', ?, 'slug', ?, ?, '1.2.3', ?, ?)`,
		id, p, dir, title, at, at); err != nil {
		t.Fatal(err)
	}
}

func addOCMessage(t *testing.T, db *sql.DB, session, id string, at int64, data string, parts ...string) {
	t.Helper()
	if _, err := db.Exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, id, session, at, at, data); err != nil {
		t.Fatal(err)
	}
	for i, p := range parts {
		if _, err := db.Exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, id+"_p"+string(rune('a'+i)), id, session, at, at, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`UPDATE session SET time_updated = ? WHERE id = ?`, at, session); err != nil {
		t.Fatal(err)
	}
}

// fillOpenCode makes the database of the tests: one session with a
// sub-agent's session under it.
func fillOpenCode(t *testing.T, db *sql.DB) {
	addOCSession(t, db, "ses_top", "", projRoot, "Rename the config loader", 1762000000000)
	addOCSession(t, db, "ses_child", "ses_top", projRoot, "subagent", 1762000000500)
	addOCMessage(t, db, "ses_top", "msg_001", 1762000001000, `{"role":"user","time":{"created":1762000001000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}`,
		`{"type":"text","text":"rename loadConfig to readConfig"}`,
		`{"type":"text","text":"OPENCODE-SYNTHETIC-CONTEXT","synthetic":true}`)
	addOCMessage(t, db, "ses_top", "msg_002", 1762000002000, `{"role":"assistant","time":{"created":1762000002000,"completed":1762000005000},"parentID":"msg_001","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","path":{"cwd":"/home/user/src/proj","root":"/home/user/src/proj"},"cost":0.01,"tokens":{"input":100,"output":50,"reasoning":0,"cache":{"read":0,"write":0}}}`,
		`{"type":"step-start"}`,
		`{"type":"reasoning","text":"Find the callers first.","time":{"start":1}}`,
		`{"type":"tool","callID":"tc_1","tool":"grep","state":{"status":"completed","input":{"pattern":"loadConfig"},"output":"config.go:3","title":"loadConfig","metadata":{},"time":{"start":1,"end":2}}}`,
		`{"type":"tool","callID":"tc_2","tool":"read","state":{"status":"completed","input":{"filePath":"/home/user/src/proj/config.go"},"output":"<file>\n00001| package config\n</file>","title":"config.go","metadata":{},"time":{"start":1,"end":2}}}`,
		`{"type":"step-finish","reason":"tool-calls","tokens":{"input":1,"output":1}}`,
		`{"type":"step-start"}`,
		`{"type":"tool","callID":"tc_3","tool":"edit","state":{"status":"error","input":{"filePath":"/home/user/src/proj/config.go","oldString":"loadConfig","newString":"readConfig"},"error":"oldString not found"}}`,
		`{"type":"step-finish","reason":"tool-calls"}`,
		`{"type":"step-start"}`,
		`{"type":"text","text":"Renamed in config.go."}`,
		`{"type":"step-finish","reason":"stop"}`)
	addOCMessage(t, db, "ses_child", "msg_c1", 1762000003000, `{"role":"user","time":{"created":1762000003000}}`, `{"type":"text","text":"SUBAGENT-PROMPT"}`)
}

// storage writes one session in opencode's older storage/ files.
func writeOCStorage(t *testing.T, root string) {
	t.Helper()
	w := func(rel, body string) {
		p := filepath.Join(root, "storage", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w("session/prjhash/ses_old.json", `{"id":"ses_old","version":"0.9.0","projectID":"prjhash","directory":"/home/user/src/proj","title":"Old storage session","time":{"created":1750000000000,"updated":1750000009000}}`)
	w("message/ses_old/msg_o1.json", `{"id":"msg_o1","sessionID":"ses_old","role":"user","time":{"created":1750000001000}}`)
	w("part/msg_o1/prt_o1a.json", `{"id":"prt_o1a","sessionID":"ses_old","messageID":"msg_o1","type":"text","text":"what does main do?"}`)
	w("message/ses_old/msg_o2.json", `{"id":"msg_o2","sessionID":"ses_old","role":"assistant","time":{"created":1750000002000},"modelID":"gpt-4.1","providerID":"openai","tokens":{"input":5,"output":5,"reasoning":0,"cache":{"read":0,"write":0}}}`)
	w("part/msg_o2/prt_o2a.json", `{"id":"prt_o2a","type":"step-start"}`)
	w("part/msg_o2/prt_o2b.json", `{"id":"prt_o2b","type":"tool","callID":"c9","tool":"bash","state":{"status":"completed","input":{"command":"go run .","timeout":60000},"output":"hello"}}`)
	w("part/msg_o2/prt_o2c.json", `{"id":"prt_o2c","type":"step-start"}`)
	w("part/msg_o2/prt_o2d.json", `{"id":"prt_o2d","type":"text","text":"It prints hello."}`)
	w("message/ses_old/broken.json", `{"id":`)
}

// contextOf opens a written file as pi-tui opens it and returns what the
// model would see, one line a message: role, then text and calls.
func contextOf(t *testing.T, path string) []string {
	t.Helper()
	s, err := pisession.Open(context.Background(), path, pisession.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if w := s.Warnings(); len(w) > 0 {
		t.Errorf("%s opened with warnings: %v", path, w)
	}
	c, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, cm := range c.Messages {
		m, err := cm.Message()
		if err != nil {
			t.Fatal(err)
		}
		line := m.Role + ":"
		if m.Role == pisession.RoleToolResult {
			line += " " + m.ToolName
			if m.IsError {
				line += " (error)"
			}
		}
		if m.Content.IsText {
			line += " " + m.Content.Text
		}
		for _, p := range m.Content.Parts {
			switch p.Type {
			case pisession.PartText:
				line += " " + p.Text
			case pisession.PartThinking:
				line += " {thinking " + p.Thinking + "}"
			case pisession.PartToolCall:
				line += " {" + p.Name + " " + string(p.Arguments) + "}"
			case pisession.PartImage:
				line += " {image}"
			}
		}
		out = append(out, line)
	}
	return out
}

func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, filepath.Join(dir, e.Name()))
	}
	sort.Strings(out)
	return out
}

func bySource(res Result) map[string]Session {
	out := map[string]Session{}
	for _, s := range res.Sessions {
		out[s.SourceID] = s
	}
	return out
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func has(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
