// Package session keeps conversations as trees of entries over the store.
//
// A session is an append-only tree: every entry has the entry that was the
// leaf when it was appended as its parent, and the session's leaf says where
// the conversation continues. Branching moves the leaf back to an earlier
// entry; the next Append then starts a second branch beside the first, whose
// entries stay in the tree. Path is the current branch (root → leaf) and
// Context is the part of it the model sees.
//
// One runtime owns a session at a time. A Session is safe for concurrent use
// by the goroutines of that runtime, but two Session values opened on the
// same session (two processes, or two Opens) do not see each other's
// appends: both are stored, each with a distinct id, and the trees held in
// memory diverge until the session is opened again.
package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

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

// ErrDamaged is returned by Open when a session's stored tree is not a tree
// (an entry whose parent is missing or not older than itself, which is how
// a cycle would show). Such a session is refused rather than guessed at.
var ErrDamaged = errors.New("the session's history is damaged")

// Entry is one node of a session's tree. Payload is JSON; treat it as
// read-only (entries share their payload memory with the session).
type Entry struct {
	ID        string          `json:"id"`
	ParentID  string          `json:"parentId,omitempty"` // "" for a root entry
	Type      string          `json:"type"`               // see the constants
	Payload   json.RawMessage `json:"payload"`
	CreatedAt int64           `json:"createdAt"` // unix ms
}

// Compaction is the payload of a TypeCompaction entry: Summary stands for
// the entries of the branch before FirstKeptEntryID.
type Compaction struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	TokensBefore     int    `json:"tokensBefore"`
}

// Summary describes a session in a listing.
type Summary struct {
	ID, ProjectID, Title string
	CreatedAt, UpdatedAt int64 // unix ms; UpdatedAt moves with appends and branch moves
	Entries              int
}

// Manager creates, opens and lists sessions.
type Manager struct {
	st    *store.Store
	newID func(n int) string // n random bytes, hex; replaced by tests
}

// NewManager returns a Manager over st.
func NewManager(st *store.Store) *Manager {
	return &Manager{st: st, newID: randomHex}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// maxIDTries bounds the retries on an id clash; with 32 random bits a
// second clash in a row is already unheard of.
const maxIDTries = 16

// Create adds an empty session to a project.
func (m *Manager) Create(ctx context.Context, projectID, title string) (*Session, error) {
	for try := 0; ; try++ {
		row, err := m.st.CreateSession(ctx, "s"+m.newID(8), projectID, title)
		if errors.Is(err, store.ErrDuplicate) && try < maxIDTries {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create session: %w", err)
		}
		return &Session{
			st: m.st, newID: m.newID, id: row.ID, projectID: row.ProjectID, title: row.Title,
			leaf: -1, index: map[string]int32{},
		}, nil
	}
}

// Open loads a session's whole tree. A stored leaf that names no entry
// falls back to the last entry appended (see Repaired); a tree whose parent
// links are broken is refused with ErrDamaged.
func (m *Manager) Open(ctx context.Context, id string) (*Session, error) {
	row, rows, err := m.st.LoadSession(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("there is no session %s; list them with pi-tui sessions list PROJECT: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	s := &Session{
		st: m.st, newID: m.newID, id: row.ID, projectID: row.ProjectID, title: row.Title,
		leaf:    -1,
		entries: make([]Entry, len(rows)),
		parent:  make([]int32, len(rows)),
		index:   make(map[string]int32, len(rows)),
	}
	for i, r := range rows {
		s.entries[i] = Entry{ID: r.ID, ParentID: r.ParentID, Type: r.Type, Payload: r.Payload, CreatedAt: r.CreatedAt}
		s.parent[i] = -1
		if r.ParentID != "" {
			// Only older entries are in the index yet, so a parent that is
			// missing, the entry itself or a newer one (a cycle) fails here.
			p, ok := s.index[r.ParentID]
			if !ok {
				return nil, fmt.Errorf("open session %s: entry %s points to parent %s, which is missing or newer than it: %w; it was left as it is",
					id, r.ID, r.ParentID, ErrDamaged)
			}
			s.parent[i] = p
		}
		s.index[r.ID] = int32(i)
	}
	if row.LeafID != "" {
		if i, ok := s.index[row.LeafID]; ok {
			s.leaf = i
		} else if len(rows) > 0 {
			s.leaf = int32(len(rows) - 1)
			s.repaired = fmt.Sprintf("the session's current entry %s was missing; it continues from the last entry added (%s)",
				row.LeafID, rows[len(rows)-1].ID)
		}
	}
	return s, nil
}

// List returns a project's sessions, most recently updated first.
func (m *Manager) List(ctx context.Context, projectID string) ([]Summary, error) {
	rows, err := m.st.ProjectSessions(ctx, projectID, 0)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, len(rows))
	for i, r := range rows {
		out[i] = summary(r)
	}
	return out, nil
}

// Latest returns a project's most recently updated session; found is false
// when it has none.
func (m *Manager) Latest(ctx context.Context, projectID string) (sum Summary, found bool, err error) {
	rows, err := m.st.ProjectSessions(ctx, projectID, 1)
	if err != nil || len(rows) == 0 {
		return Summary{}, false, err
	}
	return summary(rows[0]), true, nil
}

func summary(r store.SessionRow) Summary {
	return Summary{ID: r.ID, ProjectID: r.ProjectID, Title: r.Title, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Entries: r.Entries}
}

// Session is one open session tree. Its methods are safe for concurrent
// use; writes go to the store first and change the Session only once
// stored, so a failed write leaves it exactly as it was.
type Session struct {
	st    *store.Store
	newID func(n int) string

	mu        sync.RWMutex
	id        string
	projectID string
	title     string
	repaired  string
	leaf      int32            // index in entries; -1 = before the first entry
	entries   []Entry          // insertion (seq) order
	parent    []int32          // parent[i] = index of entries[i]'s parent, -1 for a root; always < i
	index     map[string]int32 // id → index
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// ProjectID returns the id of the session's project.
func (s *Session) ProjectID() string { return s.projectID }

// Title returns the session's title.
func (s *Session) Title() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.title
}

// Leaf returns the id of the current entry ("" before the first entry).
func (s *Session) Leaf() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.leaf < 0 {
		return ""
	}
	return s.entries[s.leaf].ID
}

// Repaired says what Open had to repair (a stored leaf naming no entry), or
// "" when the session loaded as stored.
func (s *Session) Repaired() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.repaired
}

// Append stores a new entry whose parent is the current leaf and moves the
// leaf to it. payload is marshalled to JSON; a json.RawMessage is kept as
// it is (it must be valid JSON). A compaction's payload must decode as
// Compaction.
func (s *Session) Append(ctx context.Context, typ string, payload any) (Entry, error) {
	if !knownType(typ) {
		return Entry{}, fmt.Errorf("add to session %s: unknown entry type %q", s.id, typ)
	}
	raw, err := marshal(payload)
	if err != nil {
		return Entry{}, fmt.Errorf("add %s to session %s: %w", typ, s.id, err)
	}
	if typ == TypeCompaction {
		var c Compaction
		if err := json.Unmarshal(raw, &c); err != nil {
			return Entry{}, fmt.Errorf("add compaction to session %s: the payload is not a compaction: %w", s.id, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	parentID := ""
	if s.leaf >= 0 {
		parentID = s.entries[s.leaf].ID
	}
	for try := 0; ; try++ {
		id := s.newID(4)
		if _, taken := s.index[id]; taken && try < maxIDTries {
			continue
		}
		row, err := s.st.AppendEntry(ctx, s.id, store.EntryRow{ID: id, ParentID: parentID, Type: typ, Payload: raw})
		if errors.Is(err, store.ErrDuplicate) && try < maxIDTries {
			continue // taken by another handle on this session
		}
		if err != nil {
			return Entry{}, err
		}
		e := Entry{ID: row.ID, ParentID: parentID, Type: typ, Payload: raw, CreatedAt: row.CreatedAt}
		s.entries = append(s.entries, e)
		s.parent = append(s.parent, s.leaf)
		s.leaf = int32(len(s.entries) - 1)
		s.index[e.ID] = s.leaf
		s.repaired = ""
		return e, nil
	}
}

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

// SetTitle renames the session.
func (s *Session) SetTitle(ctx context.Context, title string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.st.SetSessionTitle(ctx, s.id, title); err != nil {
		return err
	}
	s.title = title
	return nil
}

// Branch moves the leaf to an existing entry, or before the first entry
// when entryID is "". The entries after it stay in the tree; the next
// Append starts a new branch from there.
func (s *Session) Branch(ctx context.Context, entryID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	to := int32(-1)
	if entryID != "" {
		i, ok := s.index[entryID]
		if !ok {
			return fmt.Errorf("session %s has no entry %s (get_state shows the current leafId): %w", s.id, entryID, store.ErrNotFound)
		}
		to = i
	}
	if err := s.st.SetSessionLeaf(ctx, s.id, entryID); err != nil {
		return err
	}
	s.leaf = to
	s.repaired = ""
	return nil
}

// Get returns the entry with the given id, on any branch.
func (s *Session) Get(id string) (Entry, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.index[id]
	if !ok {
		return Entry{}, false
	}
	return s.entries[i], true
}

// Entries returns all entries of the tree, every branch, in the order they
// were added.
func (s *Session) Entries() []Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Entry(nil), s.entries...)
}

// Path returns the current branch: the entries from the root to the leaf.
func (s *Session) Path() []Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.path()
}

func (s *Session) path() []Entry {
	// parent[i] < i always holds, so these walks end within len(entries)
	// steps.
	n := 0
	for i := s.leaf; i >= 0; i = s.parent[i] {
		n++
	}
	out := make([]Entry, n)
	for i := s.leaf; i >= 0; i = s.parent[i] {
		n--
		out[n] = s.entries[i]
	}
	return out
}

// Context returns what the model sees of the current branch.
//
// Without a compaction on the path it is the path minus custom entries.
// Otherwise only the LAST compaction C on the path counts: Context is C,
// then the path entries from C's FirstKeptEntryID (inclusive) up to C,
// then the entries after C. Custom entries and earlier compactions are
// never part of it. When FirstKeptEntryID is not on the path before C,
// nothing before C is kept.
//
//	path:     u1 a1 C1 u2 a2 x1 u3 a3 C2 u4 a4 x2
//	                                   └─ C2.FirstKeptEntryID = a2
//	context:  C2 a2 u3 a3 u4 a4
//	          (C1: earlier compaction; x1, x2: custom entries)
//
// The entries share payload memory with the session; do not modify it.
func (s *Session) Context() []Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	path := s.path()
	c := -1
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == TypeCompaction {
			c = i
			break
		}
	}
	out := make([]Entry, 0, len(path))
	if c < 0 {
		for _, e := range path {
			if e.Type != TypeCustom {
				out = append(out, e)
			}
		}
		return out
	}
	out = append(out, path[c])
	start := c + 1
	var comp Compaction
	if json.Unmarshal(path[c].Payload, &comp) == nil && comp.FirstKeptEntryID != "" {
		for i := 0; i < c; i++ {
			if path[i].ID == comp.FirstKeptEntryID {
				start = i
				break
			}
		}
	}
	keep := func(e Entry) {
		if e.Type != TypeCustom && e.Type != TypeCompaction {
			out = append(out, e)
		}
	}
	for i := start; i < c; i++ {
		keep(path[i])
	}
	for _, e := range path[c+1:] {
		keep(e)
	}
	return out
}
