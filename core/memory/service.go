package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/pi-tui/pi-tui/store"
)

// Memory is a project's memory as loaded, with the version a save must be
// based on.
type Memory struct {
	Root      string
	Entries   []Entry
	Content   string // the projection, exactly as a runtime receives it
	UpdatedAt int64  // unix ms; 0 when never saved
	// Legacy is true when the stored record predates entries-v1.
	Legacy bool
	// base is the raw stored value this memory was read from; nil when
	// nothing was stored. Saves compare against it.
	base *string
	// extra are the stored value's top-level members this version does not
	// know; a save writes them back.
	extra map[string]json.RawMessage
}

// Bytes is the size of the projection.
func (m Memory) Bytes() int { return len(m.Content) }

// Service loads and saves project memory in the store.
type Service struct {
	st *store.Store

	mu     sync.Mutex
	memos  map[string]memo
	onSave func(root string)
}

// OnSave has fn called with the project root after every save made
// through this Service. The host publishes it on its event broker
// (core/events MemoryChanged), where the runtimes and the lists hear of
// it. Saves by other processes are not seen here; the runtimes hear of
// them as writes to the database file (core/runtimes watch.go), on the
// same road. Set it once, before the Service is shared.
func (s *Service) OnSave(fn func(root string)) { s.onSave = fn }

func (s *Service) notify(root string) {
	if s.onSave != nil {
		s.onSave(root)
	}
}

// NewService returns a Service over st.
func NewService(st *store.Store) *Service { return &Service{st: st} }

// UnreadableError says the stored record could not be decoded. The Memory
// returned with it is empty but carries the stored version, so a user can
// replace the record with a save.
type UnreadableError struct {
	Root string
	Err  error
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("stored memory for %s cannot be read (%v); saving new memory replaces it", e.Root, e.Err)
}
func (e *UnreadableError) Unwrap() error { return e.Err }

// Load returns the memory of the project at the canonical root.
func (s *Service) Load(ctx context.Context, root string) (Memory, error) {
	kv, found, err := s.st.GetKV(ctx, Namespace, root)
	if err != nil {
		return Memory{}, fmt.Errorf("load memory for %s: %w", root, err)
	}
	m := Memory{Root: root, Entries: []Entry{}}
	if !found {
		return m, nil
	}
	raw := kv.Value
	m.base = &raw
	if c, ok := s.cached(root, raw); ok {
		m.Entries, m.Content, m.UpdatedAt, m.Legacy, m.extra = append([]Entry(nil), c.Entries...), c.Content, c.UpdatedAt, c.Legacy, c.extra
		return m, nil
	}
	v, legacy, err := decode([]byte(raw))
	if err != nil {
		return m, &UnreadableError{Root: root, Err: err}
	}
	m.Entries, m.Content, m.UpdatedAt, m.Legacy, m.extra = v.Entries, v.Content, v.UpdatedAt, legacy, v.Extra
	s.remember(root, raw, m)
	return m, nil
}

// memo is the last decoded value of a root. Runtimes load memory before
// every prompt; decoding 32 KiB of JSON each time would dominate the host's
// work, and an identical stored string decodes to an identical value.
type memo struct {
	raw string
	m   Memory
}

func (s *Service) cached(root, raw string) (Memory, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.memos[root]
	if !ok || c.raw != raw {
		return Memory{}, false
	}
	return c.m, true
}

func (s *Service) remember(root, raw string, m Memory) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.memos == nil || len(s.memos) > 256 {
		s.memos = map[string]memo{}
	}
	m.Entries = append([]Entry(nil), m.Entries...)
	s.memos[root] = memo{raw: raw, m: m}
}

// Save normalises entries and stores them for base.Root, provided the
// stored value is still the one base was loaded from. It refuses a
// projection over LimitBytes (*TooLargeError) and a stale base
// (ErrConflict); in both cases nothing stored changes.
func (s *Service) Save(ctx context.Context, base Memory, entries []Entry) (Memory, error) {
	entries = Normalize(entries, nil)
	content := Project(entries)
	if len(content) > LimitBytes {
		return base, &TooLargeError{Bytes: len(content)}
	}
	now := s.st.Now().UnixMilli()
	data, err := Encode(Value{Entries: entries, UpdatedAt: now, Extra: base.extra})
	if err != nil {
		return base, fmt.Errorf("save memory for %s: %w", base.Root, err)
	}
	value := string(data)
	if err := s.st.CompareAndSwapKV(ctx, Namespace, base.Root, base.base, value); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return base, ErrConflict
		}
		return base, fmt.Errorf("save memory for %s: %w", base.Root, err)
	}
	s.notify(base.Root)
	return Memory{Root: base.Root, Entries: entries, Content: content, UpdatedAt: now, base: &value, extra: base.extra}, nil
}

// Summary counts the entries and projection bytes of a raw stored value,
// for listings. An unreadable value counts as empty.
func Summary(raw string) (entries, bytes int) {
	if raw == "" {
		return 0, 0
	}
	v, err := Decode([]byte(raw))
	if err != nil {
		return 0, 0
	}
	return len(v.Entries), len(v.Content)
}
