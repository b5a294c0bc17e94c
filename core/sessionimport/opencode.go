package sessionimport

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/pisession"
	_ "modernc.org/sqlite" // the opencode database
)

// opencode (from 1.2) keeps everything in one SQLite database,
// ~/.local/share/opencode/opencode.db: tables session (id, parent_id,
// directory, title, time_created, time_updated), message (id, session_id,
// time_created, data: the message's JSON) and part (id, message_id,
// session_id, data: the part's JSON). Before, the same JSON lived in files
// under storage/: session/<project>/<id>.json, message/<session>/<id>.json
// and part/<message>/<id>.json. A session with a parent is a sub-agent's
// and stays out. The database is opened read-only and never written.

// ocSession is an opencode session found in the database or the files.
type ocSession struct {
	id, dir, title string
	created        int64 // ms
	db             *sql.DB
	storage        string // the storage folder, when not in the database
}

// ocMessage is one message with its parts, in order.
type ocMessage struct {
	id      string
	created int64
	data    json.RawMessage
	parts   []json.RawMessage
}

// openOpenCodeDB opens the database read-only. While opencode runs, its
// write-ahead log holds the latest writes and is read through the shared
// memory file; when there is no log (opencode is closed and has
// checkpointed) the file is opened immutable, which takes no lock and
// creates no file beside it.
func openOpenCodeDB(ctx context.Context, path string) (*sql.DB, error) {
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
	q := "?mode=ro&_pragma=busy_timeout(2000)&_pragma=query_only(1)"
	if _, err := os.Stat(path + "-wal"); errors.Is(err, os.ErrNotExist) {
		q += "&immutable=1"
	}
	db, err := sql.Open("sqlite", u+q)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, dbProblem(err)
	}
	return db, nil
}

// dbProblem says in words what a database error means to the user.
func dbProblem(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "locked") || strings.Contains(msg, "busy"):
		return errors.New("the database is locked by another program; close opencode and import again")
	case strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "corrupt"):
		return errors.New("the database is damaged (" + msg + "); nothing was read from it")
	}
	return err
}

// openCodeDBSessions lists the database's top-level sessions.
func openCodeDBSessions(ctx context.Context, db *sql.DB, path string) ([]found, error) {
	rows, err := db.QueryContext(ctx, `SELECT s.id, s.directory, s.title, s.time_created, s.time_updated,
		(SELECT count(*) FROM message m WHERE m.session_id = s.id),
		(SELECT coalesce(max(m.time_updated), 0) FROM message m WHERE m.session_id = s.id)
		FROM session s WHERE s.parent_id IS NULL ORDER BY s.time_created, s.id`)
	if err != nil {
		return nil, dbProblem(err)
	}
	defer rows.Close()
	var out []found
	for rows.Next() {
		var s ocSession
		var updated, count, lastMsg int64
		if err := rows.Scan(&s.id, &s.dir, &s.title, &s.created, &updated, &count, &lastMsg); err != nil {
			return out, dbProblem(err)
		}
		s.db = db
		out = append(out, found{src: OpenCode, id: s.id, path: path, stamp: fmt.Sprintf("db:%d:%d:%d", updated, count, lastMsg), oc: &s})
	}
	return out, dbProblem2(rows.Err())
}

func dbProblem2(err error) error {
	if err == nil {
		return nil
	}
	return dbProblem(err)
}

// openCodeDBMessages reads a session's messages after the one rec last
// imported, with their parts.
func openCodeDBMessages(ctx context.Context, s *ocSession, rec record) ([]ocMessage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, time_created, data FROM message WHERE session_id = ?
		AND (time_created > ? OR (time_created = ? AND id > ?)) ORDER BY time_created, id`, s.id, rec.LastTime, rec.LastTime, rec.LastMessage)
	if err != nil {
		return nil, dbProblem(err)
	}
	var msgs []ocMessage
	at := map[string]int{}
	for rows.Next() {
		var m ocMessage
		var data []byte
		if err := rows.Scan(&m.id, &m.created, &data); err != nil {
			rows.Close()
			return nil, dbProblem(err)
		}
		m.data = data
		at[m.id] = len(msgs)
		msgs = append(msgs, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, dbProblem(err)
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	prows, err := s.db.QueryContext(ctx, `SELECT message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id`, s.id)
	if err != nil {
		return nil, dbProblem(err)
	}
	defer prows.Close()
	for prows.Next() {
		var mid string
		var data []byte
		if err := prows.Scan(&mid, &data); err != nil {
			return nil, dbProblem(err)
		}
		if i, ok := at[mid]; ok {
			msgs[i].parts = append(msgs[i].parts, data)
		}
	}
	return msgs, dbProblem2(prows.Err())
}

type ocInfo struct {
	ID        string `json:"id"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	ParentID  string `json:"parentID"`
	Time      struct {
		Created int64 `json:"created"`
		Updated int64 `json:"updated"`
	} `json:"time"`
}

// openCodeStorageSessions lists the sessions of the older storage folder.
func openCodeStorageSessions(storage string) ([]found, error) {
	projects, err := os.ReadDir(filepath.Join(storage, "session"))
	if err != nil {
		return nil, err
	}
	var out []found
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		dir := filepath.Join(storage, "session", p.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, f := range files {
			if f.IsDir() || !strings.HasSuffix(f.Name(), ".json") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, f.Name()))
			if err != nil {
				continue
			}
			var info ocInfo
			if json.Unmarshal(b, &info) != nil || info.ID == "" || info.ParentID != "" {
				continue
			}
			stamp := "files:" + itoa(int(info.Time.Updated))
			if st, err := os.Stat(filepath.Join(storage, "message", info.ID)); err == nil {
				stamp += "@" + st.ModTime().UTC().Format(time.RFC3339Nano)
			}
			s := &ocSession{id: info.ID, dir: info.Directory, title: info.Title, created: info.Time.Created, storage: storage}
			out = append(out, found{src: OpenCode, id: info.ID, path: filepath.Join(dir, f.Name()), stamp: stamp, oc: s})
		}
	}
	return out, nil
}

// openCodeStorageMessages reads a session's messages (after rec's last)
// from the storage folder.
func openCodeStorageMessages(s *ocSession, rec record, problem func(file string, msg string)) []ocMessage {
	mdir := filepath.Join(s.storage, "message", s.id)
	files, err := os.ReadDir(mdir)
	if err != nil {
		return nil
	}
	var msgs []ocMessage
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".json") {
			continue
		}
		path := filepath.Join(mdir, f.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			problem(path, err.Error())
			continue
		}
		var head struct {
			ID   string `json:"id"`
			Time struct {
				Created int64 `json:"created"`
			} `json:"time"`
		}
		if err := json.Unmarshal(b, &head); err != nil || head.ID == "" {
			problem(path, "not an opencode message; skipped")
			continue
		}
		m := ocMessage{id: head.ID, created: head.Time.Created, data: b}
		if m.created < rec.LastTime || m.created == rec.LastTime && m.id <= rec.LastMessage {
			continue
		}
		msgs = append(msgs, m)
	}
	sort.Slice(msgs, func(i, j int) bool {
		if msgs[i].created != msgs[j].created {
			return msgs[i].created < msgs[j].created
		}
		return msgs[i].id < msgs[j].id
	})
	for i := range msgs {
		pdir := filepath.Join(s.storage, "part", msgs[i].id)
		parts, err := os.ReadDir(pdir)
		if err != nil {
			continue
		}
		for _, p := range parts { // names sort as the parts were made
			if b, err := os.ReadFile(filepath.Join(pdir, p.Name())); err == nil && strings.HasSuffix(p.Name(), ".json") {
				msgs[i].parts = append(msgs[i].parts, b)
			}
		}
	}
	return msgs
}

type ocMessageData struct {
	Role       string `json:"role"`
	ModelID    string `json:"modelID"`
	ProviderID string `json:"providerID"`
	Model      *struct {
		ProviderID string `json:"providerID"`
		ModelID    string `json:"modelID"`
	} `json:"model"`
	Summary json.RawMessage `json:"summary"`
	Tokens  *struct {
		Input     int64 `json:"input"`
		Output    int64 `json:"output"`
		Reasoning int64 `json:"reasoning"`
		Cache     struct {
			Read  int64 `json:"read"`
			Write int64 `json:"write"`
		} `json:"cache"`
	} `json:"tokens"`
	Cost float64 `json:"cost"`
}

type ocPart struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Ignored   bool   `json:"ignored"`
	Tool      string `json:"tool"`
	CallID    string `json:"callID"`
	Mime      string `json:"mime"`
	URL       string `json:"url"`
	State     *struct {
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output string          `json:"output"`
		Error  string          `json:"error"`
	} `json:"state"`
}

// apiFor guesses pi's api name for an opencode provider.
func apiFor(provider string) string {
	switch provider {
	case "anthropic":
		return "anthropic-messages"
	case "openai":
		return "openai-responses"
	case "google":
		return "google-generative-ai"
	}
	return "openai-completions"
}

// convertOpenCode writes messages into c: a user message's text and
// images; an assistant message step by step (each step's text, thinking
// and calls, then the calls' results, as opencode ran them).
func convertOpenCode(c *converted, msgs []ocMessage, problem func(msg string)) {
	for _, m := range msgs {
		var d ocMessageData
		if err := json.Unmarshal(m.data, &d); err != nil {
			problem("message " + m.id + " cannot be read (" + shortErr(err) + "); skipped")
			continue
		}
		at := time.UnixMilli(m.created)
		var parts []ocPart
		for _, raw := range m.parts {
			var p ocPart
			if json.Unmarshal(raw, &p) == nil {
				parts = append(parts, p)
			}
		}
		switch d.Role {
		case "user":
			var blocks []block
			for _, p := range parts {
				switch {
				case p.Type == "compaction":
					blocks = nil
				case p.Type == "text" && !p.Synthetic && !p.Ignored:
					blocks = append(blocks, block{kind: bText, text: p.Text})
				case p.Type == "file" && strings.HasPrefix(p.Mime, "image/"):
					if data, mime, ok := dataURL(p.URL); ok {
						blocks = append(blocks, block{kind: bImage, data: data, mime: mime})
					}
				}
			}
			c.user("", at, blocks)
		case "assistant":
			if len(d.Summary) > 0 && string(d.Summary) == "true" {
				continue // a compaction's summary, opencode's own
			}
			who := model{provider: d.ProviderID, id: d.ModelID}
			if d.Model != nil && who.id == "" {
				who = model{provider: d.Model.ProviderID, id: d.Model.ModelID}
			}
			who.api = apiFor(who.provider)
			var usage *pisession.Usage
			if d.Tokens != nil {
				usage = &pisession.Usage{Input: d.Tokens.Input, Output: d.Tokens.Output + d.Tokens.Reasoning, CacheRead: d.Tokens.Cache.Read, CacheWrite: d.Tokens.Cache.Write}
				usage.TotalTokens = usage.Input + usage.Output + usage.CacheRead + usage.CacheWrite
				usage.Cost.Total = d.Cost
			}
			var step, results []block
			flush := func() {
				c.assistant("", at, who, usage, step, OpenCode)
				c.user("", at, results)
				step, results, usage = nil, nil, nil
			}
			for _, p := range parts {
				switch p.Type {
				case "step-start":
					if len(step) > 0 {
						flush()
					}
				case "text":
					if !p.Synthetic {
						step = append(step, block{kind: bText, text: p.Text})
					}
				case "reasoning":
					step = append(step, block{kind: bThinking, text: p.Text})
				case "tool":
					if p.State == nil {
						continue
					}
					step = append(step, block{kind: bCall, callID: p.CallID, name: p.Tool, args: p.State.Input})
					switch p.State.Status {
					case "completed":
						results = append(results, block{kind: bResult, callID: p.CallID, name: p.Tool, text: p.State.Output})
					case "error":
						results = append(results, block{kind: bResult, callID: p.CallID, name: p.Tool, text: p.State.Error, isError: true})
					}
				}
			}
			if len(step) > 0 || len(results) > 0 {
				flush()
			}
		}
	}
}

// readOpenCode converts a session's messages after rec's last.
func readOpenCode(ctx context.Context, fd found, rec record, c *converted, problem func(file string, line int, msg string)) (record, error) {
	s := fd.oc
	c.cwd = s.dir
	if c.created.IsZero() && s.created > 0 {
		c.created = time.UnixMilli(s.created)
	}
	var msgs []ocMessage
	if s.db != nil {
		var err error
		if msgs, err = openCodeDBMessages(ctx, s, rec); err != nil {
			return rec, err
		}
	} else {
		msgs = openCodeStorageMessages(s, rec, func(file, msg string) { problem(file, 0, msg) })
	}
	convertOpenCode(c, msgs, func(msg string) { problem(fd.path, 0, msg) })
	if n := len(msgs); n > 0 {
		rec.LastMessage, rec.LastTime = msgs[n-1].id, msgs[n-1].created
	}
	c.finish(s.title, rec.Title == s.title)
	rec.Title = s.title
	return rec, nil
}
