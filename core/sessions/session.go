// Package sessions keeps conversations as pi's own session files.
//
// Every session is a pi v3 JSONL file in pi's folder for the project's root
// (<agentDir>/sessions/--<cwd>--/, or the configured session folder), read
// and written through core/pisession, so pi lists, opens and continues what
// pi-tui wrote and the other way round. This package gives the rest of
// pi-tui its familiar view of a session: a tree of entries of pi-tui's types
// (user, assistant, tool_result, compaction, custom, model_change) with JSON
// payloads. pi's message entries are translated on the way in and out;
// pi-tui's own records (deliveries, thinking level aside) ride as custom
// entries named "pi-tui.<kind>", which pi keeps and never sends to a model;
// every entry pi-tui does not know stays in the file untouched.
//
// A session is an append-only tree: every entry has the entry that was the
// leaf when it was appended as its parent, and the session's leaf says where
// the conversation continues. Branching moves the leaf back to an earlier
// entry. Path is the current branch (root → leaf) and Context is the part of
// it the model sees, built exactly as pi builds it.
//
// Several writers (pi, other pi-tui processes) may hold a file: each append
// first reads what the others added; Changed tells the UI when that happened.
package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/filesearch"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/store"
)

// Entry types.
const (
	TypeUser        = "user"
	TypeAssistant   = "assistant"
	TypeToolResult  = "tool_result"
	TypeCompaction  = "compaction" // payload: Compaction
	TypeCustom      = "custom"     // host bookkeeping; never sent to the model
	TypeModelChange = "model_change"
)

func knownType(t string) bool {
	switch t {
	case TypeUser, TypeAssistant, TypeToolResult, TypeCompaction, TypeCustom, TypeModelChange:
		return true
	}
	return false
}

// ErrDamaged is returned by Open when a session file's parent links form
// a cycle. Such a file is refused rather than guessed at, and left alone.
var ErrDamaged = pisession.ErrDamaged

// Entry is one node of a session's tree, in pi-tui's terms. ID is the pi
// entry's id. Its payload is pi's line translated into pi-tui's shape, and
// that translation is done on first use, not when the session is read: a
// 20,000-entry session opens to its first frame having decoded only the
// entries the frame shows.
type Entry struct {
	ID       string
	ParentID string // "" for a root entry
	Type     string // see the constants
	src      *source
}

// NewEntry returns an entry that is not (yet) in a session file, with the
// given payload: what a caller that builds transcripts by hand, or a test,
// needs.
func NewEntry(id, parentID, typ string, payload json.RawMessage) Entry {
	return Entry{ID: id, ParentID: parentID, Type: typ, src: &source{raw: payload}}
}

// source is where an Entry's payload comes from: a pi entry (decoded once,
// on first use, with a tool result's pi-tui extras folded in), or JSON
// pi-tui already has.
type source struct {
	once sync.Once
	// fromFile is set when the source is made, never after: the payload
	// is translated from pe (raw is only its cache). Otherwise raw is the
	// payload pi-tui already had.
	fromFile bool
	pe       pisession.Entry
	extras   *pisession.Entry // a pi-tui.tool custom entry for this tool result
	raw      json.RawMessage
	at       int64 // unix ms
}

// Payload returns the entry's JSON payload (a stored message, a
// Compaction, a model change or a record). Treat it as read-only: it is
// shared by every copy of the entry. An entry whose line cannot be read in
// pi-tui's terms has a payload that decodes as none of those.
func (e Entry) Payload() json.RawMessage {
	if e.src == nil {
		return nil
	}
	e.src.load()
	return e.src.raw
}

// CreatedAt returns when the entry was written, in unix ms (0 when the
// line carries no readable timestamp).
func (e Entry) CreatedAt() int64 {
	if e.src == nil {
		return 0
	}
	e.src.load()
	return e.src.at
}

// MarshalJSON writes the entry with its payload, for tools and tests that
// print entries.
func (e Entry) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID        string          `json:"id"`
		ParentID  string          `json:"parentId,omitempty"`
		Type      string          `json:"type"`
		Payload   json.RawMessage `json:"payload"`
		CreatedAt int64           `json:"createdAt"`
	}{e.ID, e.ParentID, e.Type, e.Payload(), e.CreatedAt()})
}

// unreadable is the payload of an entry whose pi line does not translate:
// valid JSON that decodes as no payload type, so every reader skips it.
var unreadable = json.RawMessage(`"unreadable entry"`)

func (src *source) load() {
	src.once.Do(func() {
		if !src.fromFile {
			return
		}
		if ts := src.pe.Timestamp(); ts != "" {
			if t, err := pisession.ParseTimestamp(ts); err == nil {
				src.at = t.UnixMilli()
			}
		}
		raw, err := translate(src.pe, src.extras)
		if err != nil || raw == nil {
			raw = unreadable
		}
		src.raw = raw
	})
}

// Compaction is the payload of a TypeCompaction entry: Summary stands for
// the entries of the branch before FirstKeptEntryID.
type Compaction struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	TokensBefore     int    `json:"tokensBefore"`
}

// NotFoundError says in one sentence that a session (or an entry of one)
// is not there; errors.Is(err, store.ErrNotFound) holds for it, without
// the sentinel's words trailing the sentence.
type NotFoundError struct{ Msg string }

func (e *NotFoundError) Error() string { return e.Msg }

func (e *NotFoundError) Unwrap() error { return store.ErrNotFound }

func notFound(format string, args ...any) error {
	return &NotFoundError{Msg: fmt.Sprintf(format, args...)}
}

// Summary describes a session file in a listing.
type Summary struct {
	ID, ProjectID, Title string
	CreatedAt, UpdatedAt int64 // unix ms; UpdatedAt is pi's "modified"
	Entries              int
	// Messages counts message entries on every branch, as pi counts them.
	Messages int
	// Path is the session file.
	Path string
	// FirstMessage is the first user message, as pi's picker shows it.
	FirstMessage string
	// Problem says in one line what is wrong with the file ("" when
	// nothing). Broken files cannot be opened; the others open.
	Problem string
	Broken  bool
	// Worktree is the binding the file records, as it stands (unverified:
	// worktree.Service.Of verifies it); zero when the session has none.
	Worktree Worktree
}

// Label is what a session is called wherever pi-tui names it (the
// sessions list, the palette, the chat's header, the CLI): its name, else
// what was typed in its first message without the files attached to it
// (the <file name=…> blocks @ completion puts before the text); the first
// line only, "" when it has neither. The text is raw: the caller shows it
// with its control characters made visible.
func Label(name, first string) string {
	if name == "" {
		name, _ = filesearch.SplitAttached(first)
	}
	line, _, _ := strings.Cut(name, "\n")
	return line
}

// Config says where session files live.
type Config struct {
	// AgentDir is pi's agent folder (~/.pi/agent); sessions go to
	// <AgentDir>/sessions/--<cwd>--/.
	AgentDir string
	// SessionDir, when set, holds every session file directly (pi's
	// --session-dir, $PI_CODING_AGENT_SESSION_DIR or the sessionDir
	// setting, as paths.SessionFolder works it out).
	SessionDir string
	// Now is the clock for timestamps (time.Now when nil).
	Now func() time.Time
	// Arrived, when set, is called with a session's id and a count after
	// entries other writers appended were read (by an append or Refresh):
	// the host core announces it on the event broker, so every
	// program showing the session rereads it.
	Arrived func(sessionID string, entries int)
	// Deleted, when set, is called with a session's id once Delete has
	// removed its file: the host core removes what it keeps of the
	// session elsewhere (its checkpoints), which this package does not
	// know of.
	Deleted func(sessionID string) error
}

// Manager creates, opens and lists the sessions of the store's projects.
type Manager struct {
	st  *store.Store
	cfg Config
	idx *pisession.MemIndex

	mu       sync.Mutex
	pending  map[string]*Session // created, not yet written (no prompt sent)
	known    map[string]string   // session id → file, as listed or opened
	migrated bool
}

// NewManager returns a Manager over st's projects. The composition root
// (core/host) builds the one a process uses.
func NewManager(st *store.Store, cfg Config) *Manager {
	return &Manager{st: st, cfg: cfg, idx: pisession.NewMemIndex(), pending: map[string]*Session{}, known: map[string]string{}}
}

// Dir returns the folder of a project root's session files.
func (m *Manager) Dir(root string) string {
	if m.cfg.SessionDir != "" {
		return m.cfg.SessionDir
	}
	return pisession.SessionsDir(m.cfg.AgentDir, root)
}

func (m *Manager) opts() pisession.Options { return pisession.Options{Now: m.cfg.Now} }

// Create starts a session of a project. Nothing is written until its first
// prompt is sent (a session exists once its first prompt is sent); until
// then Open finds it in this Manager only.
func (m *Manager) Create(ctx context.Context, projectID, title string) (*Session, error) {
	root, _, err := m.st.ProjectBinding(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	ps, err := pisession.Create(ctx, m.Dir(root), pisession.NewSession{Cwd: root, Deferred: true}, m.opts())
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	s := newSession(ps, projectID, m.cfg.Arrived)
	s.persisted = func(ctx context.Context) {
		// The row only lets the Projects list count the session; a failure
		// here loses nothing (the file is the session).
		_ = m.st.IndexSession(ctx, projectID, s.ID())
	}
	s.unpersisted = func(ctx context.Context) {
		path := s.File()
		m.mu.Lock()
		m.pending[s.ID()] = s
		m.mu.Unlock()
		m.idx.Retain(func(p string) bool { return p != path })
		_ = m.st.UnindexSession(ctx, projectID, s.ID())
	}
	if title != "" {
		if _, err := ps.SetName(ctx, title); err != nil {
			ps.Close()
			return nil, fmt.Errorf("create session: %w", err)
		}
	}
	m.mu.Lock()
	m.pending[s.ID()] = s
	m.known[s.ID()] = ps.File()
	m.mu.Unlock()
	return s, nil
}

// Open opens a session by id (or a unique prefix of one, as pi's --session
// takes it), of any project: Lookup says which, and refuses an id that
// names more than one session. Lines the file has that pi would skip are
// skipped and listed by Repaired; a file whose history is a cycle is
// refused with ErrDamaged, one too large to hold with
// pisession.ErrTooLarge.
func (m *Manager) Open(ctx context.Context, id string) (*Session, error) {
	return m.OpenIn(ctx, "", id)
}

// OpenIn is Open kept to one project's sessions (projectID; "" for every
// project's): a prefix several projects' sessions share opens the one of
// that project.
func (m *Manager) OpenIn(ctx context.Context, projectID, id string) (*Session, error) {
	if err := m.Migrate(ctx); err != nil {
		return nil, err
	}
	m.mu.Lock()
	if s := m.pending[id]; s != nil {
		if !s.pi.Persisted() && (projectID == "" || s.projectID == projectID) {
			m.mu.Unlock()
			return s, nil
		}
		if s.pi.Persisted() {
			delete(m.pending, id)
		}
	}
	m.mu.Unlock()
	mt, err := m.Lookup(ctx, id, projectID)
	if err != nil {
		return nil, err
	}
	ps, err := pisession.Open(ctx, mt.Path, m.opts())
	if errors.Is(err, pisession.ErrTooLarge) {
		return nil, err // already one line: the file, its size, the limit, what to do
	}
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w; it was left as it is", id, err)
	}
	sess := newSession(ps, mt.ProjectID, m.cfg.Arrived)
	if sess.projectID == "" {
		// A worktree session's header names the worktree (pi works there):
		// its project is the one the worktree was made from.
		if w, _ := sess.Worktree(); w.Active() {
			if projects, err := m.st.Projects(ctx, ""); err == nil {
				root := ownerRoot(ps.Header().Cwd, w)
				for _, p := range projects {
					if p.Root == root {
						sess.projectID = p.ID
						break
					}
				}
			}
		}
	}
	m.mu.Lock()
	m.known[ps.ID()] = mt.Path
	m.mu.Unlock()
	return sess, nil
}

// List returns a project's session files, most recently active first;
// files that cannot be read are listed with their problem.
func (m *Manager) List(ctx context.Context, projectID string) ([]Summary, error) {
	if err := m.Migrate(ctx); err != nil {
		return nil, err
	}
	root, _, err := m.st.ProjectBinding(ctx, projectID)
	if err != nil {
		return nil, err
	}
	dir := m.Dir(root)
	sums, err := pisession.List(ctx, dir, m.idx, listOptions())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	shared := m.cfg.SessionDir != ""
	out := make([]Summary, 0, len(sums))
	m.mu.Lock()
	for _, s := range sums {
		// In a shared folder a broken file is shown in every project, as
		// its project is unknown, unless its header was read (a file too
		// large to open).
		if shared && summaryRoot(s) != root && (!s.Broken || s.Cwd != "") {
			continue
		}
		if s.ID != "" {
			m.known[s.ID] = s.Path
		}
		out = append(out, summaryOf(s, projectID))
	}
	m.mu.Unlock()
	ids := make([]string, len(out))
	for i, s := range out {
		ids[i] = fileID(filepath.Base(s.Path))
	}
	// The listing just read the folder: the index is brought in line with
	// it. A failure costs only a stale count.
	_ = m.st.SetSessionIndex(ctx, projectID, ids)
	sortRecentFirst(out)
	return out, nil
}

func summaryOf(s pisession.Summary, projectID string) Summary {
	id := s.ID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(s.Path), ".jsonl")
	}
	out := Summary{ID: id, ProjectID: projectID, Title: s.Name, Entries: s.Entries, Messages: s.Messages, Path: s.Path,
		FirstMessage: s.FirstMessage, Problem: s.Problem, Broken: s.Broken, UpdatedAt: s.LastActivity.UnixMilli(),
		Worktree: latestWorktree(s.Custom[customPrefix+KindWorktree])}
	if t, err := pisession.ParseTimestamp(s.Created); err == nil {
		out.CreatedAt = t.UnixMilli()
	} else {
		out.CreatedAt = s.ModTime.UnixMilli()
	}
	if s.LastActivity.IsZero() {
		out.UpdatedAt = s.ModTime.UnixMilli()
	}
	return out
}

// Reconcile brings the store's index of session files (what the Projects
// list counts) in line with the files: sessions pi began, files deleted or
// copied by hand. Folders of their own are read by name only; a shared
// session folder needs each file's header to tell projects apart. changed
// reports whether any project's count moved.
func (m *Manager) Reconcile(ctx context.Context) (changed bool, err error) {
	if err := m.Migrate(ctx); err != nil {
		return false, err
	}
	projects, err := m.st.Projects(ctx, "")
	if err != nil {
		return false, err
	}
	have, err := m.st.SessionIndex(ctx)
	if err != nil {
		return false, err
	}
	for _, p := range projects {
		if err := ctx.Err(); err != nil {
			return changed, err
		}
		var ids []string
		if m.cfg.SessionDir != "" {
			list, err := m.List(ctx, p.ID) // indexes as it lists
			if err != nil {
				continue
			}
			if len(list) != len(have[p.ID]) {
				changed = true
			}
			continue
		}
		ids, err = fileIDs(m.Dir(p.Root))
		if err != nil {
			continue // an unreadable folder keeps its old count
		}
		slices.Sort(ids)
		if slices.Equal(ids, have[p.ID]) {
			continue
		}
		if err := m.st.SetSessionIndex(ctx, p.ID, ids); err != nil {
			return changed, err
		}
		changed = true
	}
	return changed, nil
}

// fileIDs returns the session ids of a folder's *.jsonl files, read from
// their names as pi writes them (<timestamp>_<id>.jsonl); a file named
// otherwise counts under its name.
func fileIDs(dir string) ([]string, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, de := range des {
		if strings.HasSuffix(de.Name(), ".jsonl") && !de.IsDir() {
			ids = append(ids, fileID(de.Name()))
		}
	}
	return ids, nil
}

// fileID is the session id a file's name carries (see fileIDs).
func fileID(name string) string {
	name = strings.TrimSuffix(name, ".jsonl")
	if u := strings.LastIndexByte(name, '_'); u >= 0 {
		return name[u+1:]
	}
	return name
}

// Latest returns a project's most recently active session that opens
// (pi's --continue); found is false when it has none.
func (m *Manager) Latest(ctx context.Context, projectID string) (sum Summary, found bool, err error) {
	list, err := m.List(ctx, projectID)
	if err != nil {
		return Summary{}, false, err
	}
	for _, s := range list {
		if !s.Broken {
			return s, true, nil
		}
	}
	return Summary{}, false, nil
}

// Session is one open session file. Its methods are safe for concurrent use.
type Session struct {
	pi        *pisession.Session
	projectID string

	mu      sync.Mutex
	views   map[string]cached // pi entry id → pi-tui's view (entries never change)
	changed chan struct{}     // closed when other writers' entries arrive
	// persisted, when set, is told once that the file was created, so the
	// store can count the session with its project (an index only: the
	// file is the session).
	persisted func(ctx context.Context)
	// unpersisted, when set, is told that the file was removed again
	// (Unpersist), so the Manager finds the session in memory.
	unpersisted func(ctx context.Context)
	onArrived   func(sessionID string, entries int) // Config.Arrived
}

type cached struct {
	e      Entry
	ok     bool
	merged bool // a tool result whose extras were added
}

func newSession(ps *pisession.Session, projectID string, arrived func(string, int)) *Session {
	return &Session{pi: ps, projectID: projectID, views: make(map[string]cached, ps.Len()), changed: make(chan struct{}), onArrived: arrived}
}

// ID returns the session's id (the file header's).
func (s *Session) ID() string { return s.pi.ID() }

// ProjectID returns the id of the session's project ("" when no project
// has the file's working directory as its root).
func (s *Session) ProjectID() string { return s.projectID }

// File returns the session file's path (where it will be, before the first
// prompt).
func (s *Session) File() string { return s.pi.File() }

// Title returns the session's name (pi's session_info).
func (s *Session) Title() string { return s.pi.Name() }

// Leaf returns the id of the current entry ("" before the first entry).
//
// It names an entry pi-tui shows (Path's last), never one of its own
// markers or an entry it hides (a name, a label, an extension's state), so
// a client can branch to it or find it in the transcript.
func (s *Session) Leaf() string {
	id := s.pi.Leaf()
	for range s.pi.Len() {
		pe, ok := s.pi.Get(id)
		if !ok {
			return id
		}
		if _, extras := extrasTarget(pe); !extras {
			if _, shown := s.viewOf(pe); shown {
				return id
			}
		}
		id = pe.ParentID
	}
	return id
}

// Repaired says what opening skipped (malformed lines, dangling parents),
// or "" when the file read cleanly.
func (s *Session) Repaired() string { return strings.Join(s.pi.Warnings(), "; ") }

// Close releases the file. A session whose first prompt was never sent
// leaves no file.
func (s *Session) Close() error { return s.pi.Close() }

// Changed returns a channel that is closed when entries other writers
// appended have been read (by an append or Refresh); ask again after.
func (s *Session) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

func (s *Session) arrived(es []pisession.Entry) {
	if len(es) == 0 {
		return
	}
	s.mu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	if s.onArrived != nil {
		s.onArrived(s.ID(), len(es))
	}
}

// Persist writes a new session's file (its header) now rather than at
// the first message: another program that is given the file (the user's
// pi, launched on it) then continues this session, with its id, instead
// of starting one of its own there.
func (s *Session) Persist(ctx context.Context) error {
	if s.pi.Persisted() {
		return nil
	}
	if err := s.pi.Flush(ctx); err != nil {
		return err
	}
	if s.persisted != nil {
		s.persisted(ctx)
	}
	return nil
}

// Unpersist undoes Persist for a session that came to nothing: its file,
// which holds no more than pi-tui wrote (no message; pi appended
// nothing), is removed and the session is back in memory, written again
// at its next Persist or first message. It reports whether it did (see
// pisession.Session.Unflush); only a session this Manager created is
// ever unpersisted. The caller makes sure no program holds the file.
func (s *Session) Unpersist(ctx context.Context) (bool, error) {
	if s.unpersisted == nil {
		return false, nil
	}
	ok, err := s.pi.Unflush(ctx)
	if ok {
		s.unpersisted(ctx)
	}
	return ok, err
}

// Refresh reads what other writers appended since the session last looked
// and reports how many entries arrived.
func (s *Session) Refresh(ctx context.Context) (int, error) {
	if !s.pi.Persisted() {
		return 0, nil
	}
	es, err := s.pi.Refresh(ctx)
	s.arrived(es)
	return len(es), err
}

// Append stores a new entry whose parent is the current leaf and moves the
// leaf to it. payload is marshalled to JSON; a json.RawMessage is kept as
// it is (it must be valid JSON). A compaction's payload must decode as
// Compaction. The first user message creates the file.
func (s *Session) Append(ctx context.Context, typ string, payload any) (Entry, error) {
	if !knownType(typ) {
		return Entry{}, fmt.Errorf("add to session %s: unknown entry type %q", s.ID(), typ)
	}
	raw, err := marshal(payload)
	if err != nil {
		return Entry{}, fmt.Errorf("add %s to session %s: %w", typ, s.ID(), err)
	}
	var a pisession.Appended
	switch typ {
	case TypeUser, TypeAssistant, TypeToolResult:
		var sm entries.StoredMessage
		if err := json.Unmarshal(raw, &sm); err != nil {
			return Entry{}, fmt.Errorf("add %s to session %s: the payload is not a message: %w", typ, s.ID(), err)
		}
		a, err = s.pi.AppendMessage(ctx, toPiMessage(typ, sm, s.now()))
		s.arrived(a.Arrived)
		if err != nil {
			return Entry{}, err
		}
		if typ == TypeToolResult && (sm.Path != "" || sm.Preflight != nil || sm.ToolMs != 0) {
			x, xerr := s.pi.AppendCustom(ctx, customTool, toolExtras{ToolResultID: a.Entry.ID, Path: sm.Path, Preflight: sm.Preflight, ToolMs: sm.ToolMs})
			s.arrived(x.Arrived)
			if xerr != nil {
				return Entry{}, xerr
			}
		}
		if typ == TypeUser && !s.pi.Persisted() {
			if err := s.pi.Flush(ctx); err != nil {
				return Entry{}, err
			}
			if s.persisted != nil {
				s.persisted(ctx)
			}
		}
	case TypeCompaction:
		var c Compaction
		if err := json.Unmarshal(raw, &c); err != nil {
			return Entry{}, fmt.Errorf("add compaction to session %s: the payload is not a compaction: %w", s.ID(), err)
		}
		a, err = s.pi.AppendCompaction(ctx, pisession.Compaction{Summary: c.Summary, FirstKeptEntryID: c.FirstKeptEntryID, TokensBefore: int64(c.TokensBefore)})
	case TypeModelChange:
		var v struct {
			Model string `json:"model"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return Entry{}, fmt.Errorf("add model change to session %s: %w", s.ID(), err)
		}
		prov, id, _ := strings.Cut(v.Model, "/")
		a, err = s.pi.AppendModelChange(ctx, prov, id)
	case TypeCustom:
		var r record
		_ = json.Unmarshal(raw, &r)
		if r.Kind == kindThinking {
			a, err = s.pi.AppendThinkingLevelChange(ctx, r.ThinkingLevel)
		} else {
			kind := r.Kind
			if kind == "" {
				kind = "record"
			}
			a, err = s.pi.AppendCustom(ctx, customPrefix+kind, raw)
		}
	}
	if typ != TypeUser && typ != TypeAssistant && typ != TypeToolResult {
		s.arrived(a.Arrived)
		if err != nil {
			return Entry{}, err
		}
	}
	e := Entry{ID: a.Entry.ID, ParentID: a.Entry.ParentID, Type: typ, src: &source{raw: raw, at: s.now().UnixMilli()}}
	s.mu.Lock()
	s.views[e.ID] = cached{e: e, ok: true, merged: true}
	s.mu.Unlock()
	return e, nil
}

func (s *Session) now() time.Time { return time.Now() }

func marshal(payload any) (json.RawMessage, error) {
	if raw, ok := payload.(json.RawMessage); ok {
		if raw == nil {
			return json.RawMessage("null"), nil
		}
		if !json.Valid(raw) {
			return nil, errors.New("the payload is not valid JSON")
		}
		return append(json.RawMessage(nil), raw...), nil
	}
	return json.Marshal(payload)
}

// SetTitle names the session (pi's session_info entry).
func (s *Session) SetTitle(ctx context.Context, title string) error {
	a, err := s.pi.SetName(ctx, title)
	s.arrived(a.Arrived)
	return err
}

// Branch moves the leaf to an existing entry, or before the first entry
// when entryID is "". The entries after it stay in the tree; the next
// Append starts a new branch from there. pi reopens the file on the same
// branch. The session's model and thinking level stay as they were.
func (s *Session) Branch(ctx context.Context, entryID string) error {
	if entryID != "" {
		pe, ok := s.pi.Get(entryID)
		if !ok {
			return notFound("session %s has no entry %s (get_state shows the current leafId)", s.ID(), entryID)
		}
		if e, _ := s.viewOf(pe); e.Type == TypeToolResult {
			// Keep the result's extras (a child entry) on the branch.
			for _, c := range s.pi.Entries() {
				if t, ok := extrasTarget(c); ok && t == entryID && c.ParentID == entryID {
					entryID = c.ID
					break
				}
			}
		}
	}
	model, level := s.Chosen()
	a, err := s.pi.Branch(ctx, entryID)
	s.arrived(a.Arrived)
	if err != nil {
		return err
	}
	// The model and thinking level are the session's, not the branch's:
	// a choice made after the branch point is written again on the new
	// branch, so it holds there and when the session reopens.
	nowModel, nowLevel := s.Chosen()
	if model != "" && nowModel != model {
		if _, err := s.Append(ctx, TypeModelChange, map[string]string{"model": model}); err != nil {
			return err
		}
	}
	if level != "" && nowLevel != level {
		if _, err := s.Append(ctx, TypeCustom, record{Kind: kindThinking, ThinkingLevel: level}); err != nil {
			return err
		}
	}
	return nil
}

// viewOf returns pi-tui's view of a pi entry, cached.
func (s *Session) viewOf(pe pisession.Entry) (Entry, bool) {
	s.mu.Lock()
	c, hit := s.views[pe.ID]
	s.mu.Unlock()
	if hit {
		return c.e, c.ok
	}
	e, ok := view(pe)
	s.mu.Lock()
	if c, hit := s.views[pe.ID]; hit {
		e, ok = c.e, c.ok
	} else {
		s.views[pe.ID] = cached{e: e, ok: ok}
	}
	s.mu.Unlock()
	return e, ok
}

// viewAll turns pi entries into pi-tui's, folding each tool result's
// extras (a pi-tui.tool custom entry) into the result.
func (s *Session) viewAll(pes []pisession.Entry) []Entry {
	out := make([]Entry, 0, len(pes))
	at := map[string]int{} // tool result id → index in out
	for _, pe := range pes {
		if target, ok := extrasTarget(pe); ok {
			s.merge(pe, target, at, out)
			continue
		}
		e, ok := s.viewOf(pe)
		if !ok {
			continue
		}
		if e.Type == TypeToolResult {
			at[e.ID] = len(out)
		}
		out = append(out, e)
	}
	return out
}

// merge gives the tool result target (already in out) the extras entry pe.
func (s *Session) merge(pe pisession.Entry, target string, at map[string]int, out []Entry) {
	i, ok := at[target]
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.views[target]; cur.merged {
		out[i] = cur.e
		return
	}
	e := out[i]
	if e.src == nil || !e.src.fromFile {
		return
	}
	// A new source: the old one may have been translated already (by Get
	// or Context) without the extras, and is shared with its readers.
	e.src = &source{fromFile: true, pe: e.src.pe, extras: &pe}
	s.views[target] = cached{e: e, ok: true, merged: true}
	out[i] = e
}

// Get returns the entry with the given id, on any branch.
func (s *Session) Get(id string) (Entry, bool) {
	pe, ok := s.pi.Get(id)
	if !ok {
		return Entry{}, false
	}
	return s.viewOf(pe)
}

// Entries returns all entries of the tree that pi-tui shows, every branch,
// in file order.
func (s *Session) Entries() []Entry { return s.viewAll(s.pi.Entries()) }

// Path returns the current branch: the entries from the root to the leaf.
func (s *Session) Path() []Entry { return s.viewAll(s.pi.Path()) }

// Context returns what the model sees of the current branch, as pi builds
// it: with a compaction on the branch, the last one (as a TypeCompaction
// entry) followed by the entries from its first kept entry on. Extension
// messages and branch summaries come as user entries; custom entries never
// come.
func (s *Session) Context() []Entry {
	c, err := s.pi.Context()
	if err != nil {
		return nil
	}
	out := make([]Entry, 0, len(c.Messages))
	for _, cm := range c.Messages {
		pe, ok := s.pi.Get(cm.EntryID)
		// An edited message (pi 1.x's context_edit) is sent with the edit's
		// content, not its line's.
		if ok && cm.EditID == "" && (cm.EntryType == pisession.TypeCompaction || cm.EntryType == pisession.TypeMessage) {
			if e, ok := s.viewOf(pe); ok && (e.Type == TypeCompaction || roleMatches(e.Type, cm.Role)) {
				out = append(out, e)
				continue
			}
		}
		m, err := cm.Message()
		if err != nil {
			continue
		}
		if typ, sm, ok := fromPiMessage(m); ok && cm.EntryType == pisession.TypeMessage {
			if raw, err := json.Marshal(sm); err == nil {
				out = append(out, Entry{ID: cm.EntryID, Type: typ, src: &source{raw: raw}})
				continue
			}
		}
		out = append(out, userEntry(cm.EntryID, m))
	}
	return out
}

func roleMatches(typ, role string) bool {
	switch typ {
	case TypeUser:
		return role == pisession.RoleUser
	case TypeAssistant:
		return role == pisession.RoleAssistant
	case TypeToolResult:
		return role == pisession.RoleToolResult
	}
	return false
}

// Chosen returns the model ("PROVIDER/ID") and thinking level chosen last
// on the current branch (a model_change, a thinking_level_change), "" for
// either when none was. Any program may have chosen them: pi, the UI's
// /model and /thinking, another pi-tui.
func (s *Session) Chosen() (model, thinkingLevel string) {
	path := s.Path()
	for i := len(path) - 1; i >= 0 && (model == "" || thinkingLevel == ""); i-- {
		e := path[i]
		switch e.Type {
		case TypeModelChange:
			var v struct {
				Model string `json:"model"`
			}
			if model == "" && json.Unmarshal(e.Payload(), &v) == nil {
				model = v.Model
			}
		case TypeCustom:
			var r record
			if thinkingLevel == "" && json.Unmarshal(e.Payload(), &r) == nil && r.Kind == kindThinking {
				thinkingLevel = r.ThinkingLevel
			}
		}
	}
	return model, thinkingLevel
}

// sortRecentFirst orders summaries most recently active first, keeping
// the listing's order among equals: how every list of sessions is shown.
func sortRecentFirst(out []Summary) {
	slices.SortStableFunc(out, func(a, b Summary) int {
		switch {
		case a.UpdatedAt > b.UpdatedAt:
			return -1
		case a.UpdatedAt < b.UpdatedAt:
			return 1
		}
		return 0
	})
}

// Stats are the session's totals (messages, tokens, cost) counted as pi
// 1.6's get_session_stats counts them: every entry of the file.
func (s *Session) Stats() pisession.Stats { return s.pi.Stats() }
