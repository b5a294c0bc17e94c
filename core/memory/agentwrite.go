package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pi-tui/pi-tui/store"
)

// Agent-written memory (ADR 0022). A project whose switch is on lets its
// agent add, replace and remove entries through the remember tool. Every
// write is compare-and-swap like the editor's, bound by the same limit,
// marks the entry as the agent's, and returns a Change that undoes it.

// AgentWritesNamespace holds the per-project switch: key the project id
// (it stays with the project; a removed and re-added folder gets a new id
// and starts off), value "on" or "off". No row means off.
const AgentWritesNamespace = "memoryAgentWrites"

// AgentWrites reports whether the agent may write the project's memory.
func (s *Service) AgentWrites(ctx context.Context, projectID string) (bool, error) {
	kv, found, err := s.st.GetKV(ctx, AgentWritesNamespace, projectID)
	if err != nil {
		return false, fmt.Errorf("read whether the agent may write memory: %w", err)
	}
	return found && switchOn(kv.Value), nil
}

// AllAgentWrites reads every project's switch in one query (project id →
// on), for a list that shows them all. A project with no row is off.
func (s *Service) AllAgentWrites(ctx context.Context) (map[string]bool, error) {
	kv, err := s.st.KVNamespace(ctx, AgentWritesNamespace)
	if err != nil {
		return nil, fmt.Errorf("read whether the agent may write memory: %w", err)
	}
	out := make(map[string]bool, len(kv))
	for id, v := range kv {
		out[id] = switchOn(v)
	}
	return out, nil
}

// switchOn is the one rule for reading a stored switch: "on" is on, and
// anything else (off, or a value written by hand) is off.
func switchOn(value string) bool { return value == "on" }

// SetAgentWrites turns the switch on or off. It is one value, not a
// document someone edits, so it is written over whatever it held; only
// another writer in the same instant makes it fail, with a sentence.
func (s *Service) SetAgentWrites(ctx context.Context, projectID string, on bool) error {
	value := "off"
	if on {
		value = "on"
	}
	cur, found, err := s.st.GetKV(ctx, AgentWritesNamespace, projectID)
	if err != nil {
		return err
	}
	var base *string
	if found {
		base = &cur.Value
	}
	if err := s.st.CompareAndSwapKV(ctx, AgentWritesNamespace, projectID, base, value); errors.Is(err, store.ErrConflict) {
		return errors.New("the agent-writes switch was changed by someone else at the same moment; nothing was changed: try again")
	} else if err != nil {
		return fmt.Errorf("save the agent-writes switch: %w", err)
	}
	return nil
}

// Actions of the remember tool.
const (
	ActionAdd     = "add"
	ActionReplace = "replace"
	ActionRemove  = "remove"
)

// Op is one change the agent asks for. Replace and remove name their entry
// by ID or, failing that, by a piece of text only one entry holds (in its
// title or content).
type Op struct {
	Action  string
	ID      string
	Match   string
	Title   *string // add: the title; replace: nil keeps the old one
	Content string  // add: required; replace: "" keeps the old one
}

// Change is what one agent write did, enough to show it and to undo it.
type Change struct {
	Root   string `json:"root"`
	Action string `json:"action"`
	Index  int    `json:"index"` // where the entry was (remove) or is (add, replace)
	Before *Entry `json:"before,omitempty"`
	After  *Entry `json:"after,omitempty"`
	Bytes  int    `json:"bytes"` // the projection's size after the write
}

// Summary says in one line what the change did, for the transcript and
// the model.
func (c Change) Summary() string {
	size := fmt.Sprintf("memory now %s of %s bytes", GroupDigits(c.Bytes), GroupDigits(LimitBytes))
	switch c.Action {
	case ActionAdd:
		return fmt.Sprintf("added entry %s%s (%s)", c.After.ID, quotedTitle(*c.After), size)
	case ActionReplace:
		return fmt.Sprintf("replaced entry %s%s (%s)", c.After.ID, quotedTitle(*c.After), size)
	case ActionRemove:
		return fmt.Sprintf("removed entry %s%s (%s)", c.Before.ID, quotedTitle(*c.Before), size)
	}
	return c.Action
}

func quotedTitle(e Entry) string {
	name := e.Title
	if name == "" {
		name, _, _ = strings.Cut(e.Content, "\n")
	}
	if r := []rune(name); len(r) > 60 {
		name = string(r[:59]) + "…"
	}
	return fmt.Sprintf(" %q", name)
}

// ErrUndoStale refuses an undo of an entry that changed after the write.
var ErrUndoStale = errors.New("the entry changed after the agent wrote it, so nothing was undone; change it in the memory editor")

// Apply makes the agent's change to the memory of root: loaded, changed
// and saved compare-and-swap; when another writer saved in between, it
// loads again and retries once. The limit, a stale base twice and an
// unreadable stored value are errors, and nothing stored changes.
func (s *Service) Apply(ctx context.Context, root string, op Op) (Memory, Change, error) {
	for attempt := 0; ; attempt++ {
		m, err := s.Load(ctx, root)
		if err != nil {
			return m, Change{}, err
		}
		entries, ch, err := apply(m.Entries, op)
		if err != nil {
			return m, Change{}, err
		}
		saved, err := s.Save(ctx, m, entries)
		if errors.Is(err, ErrConflict) && attempt == 0 {
			continue
		}
		if err != nil {
			return m, Change{}, err
		}
		ch.Root, ch.Bytes = root, saved.Bytes()
		if ch.After != nil {
			// The entry as stored: normalised, with its id.
			if i := indexOf(saved.Entries, ch.After.ID); i >= 0 {
				e := saved.Entries[i]
				ch.After, ch.Index = &e, i
			}
		}
		return saved, ch, nil
	}
}

// apply makes op's change to a copy of entries.
func apply(entries []Entry, op Op) ([]Entry, Change, error) {
	out := append([]Entry(nil), entries...)
	ch := Change{Action: op.Action}
	switch op.Action {
	case ActionAdd:
		if strings.TrimSpace(op.Content) == "" {
			return nil, ch, errors.New("content is empty; say what to remember")
		}
		e := Entry{ID: NewID(), Content: op.Content, By: ByAgent}
		if op.Title != nil {
			e.Title = *op.Title
		}
		ch.After, ch.Index = &e, len(out)
		return append(out, e), ch, nil
	case ActionReplace, ActionRemove:
		i, err := find(out, op)
		if err != nil {
			return nil, ch, err
		}
		before := out[i]
		ch.Before, ch.Index = &before, i
		if op.Action == ActionRemove {
			return append(out[:i], out[i+1:]...), ch, nil
		}
		e := before
		e.By = ByAgent
		if op.Title != nil {
			e.Title = *op.Title
		}
		if strings.TrimSpace(op.Content) != "" {
			e.Content = op.Content
		}
		if op.Title == nil && strings.TrimSpace(op.Content) == "" {
			return nil, ch, errors.New("replace needs a new content or title")
		}
		out[i] = e
		ch.After = &e
		return out, ch, nil
	}
	return nil, ch, fmt.Errorf("unknown action %q: use add, replace or remove", op.Action)
}

// find picks the entry op names: by id, else by text only one entry holds.
func find(entries []Entry, op Op) (int, error) {
	if id := strings.TrimSpace(op.ID); id != "" {
		if i := indexOf(entries, id); i >= 0 {
			return i, nil
		}
		return -1, fmt.Errorf("there is no entry with id %q; the ids are: %s", id, ids(entries))
	}
	match := strings.TrimSpace(op.Match)
	if match == "" {
		return -1, errors.New("name the entry: give its id, or text that only it contains")
	}
	found := -1
	for i, e := range entries {
		if strings.Contains(e.Title, match) || strings.Contains(e.Content, match) {
			if found >= 0 {
				return -1, fmt.Errorf("more than one entry contains %q; give the id instead (%s)", match, ids(entries))
			}
			found = i
		}
	}
	if found < 0 {
		return -1, fmt.Errorf("no entry contains %q; the ids are: %s", match, ids(entries))
	}
	return found, nil
}

func ids(entries []Entry) string {
	if len(entries) == 0 {
		return "(the memory is empty)"
	}
	var parts []string
	for _, e := range entries {
		parts = append(parts, e.ID+quotedTitle(e))
		if len(parts) == 20 {
			parts = append(parts, fmt.Sprintf("and %d more", len(entries)-20))
			break
		}
	}
	return strings.Join(parts, ", ")
}

func indexOf(entries []Entry, id string) int {
	for i, e := range entries {
		if e.ID == id {
			return i
		}
	}
	return -1
}

func sameText(a, b Entry) bool { return a.ID == b.ID && a.Title == b.Title && a.Content == b.Content }

// Undo reverses a Change, compare-and-swap, provided the entry it wrote
// is still as it wrote it (entries changed since by anyone else are left
// alone): an added entry is removed, a replaced one gets its old text and
// author back, a removed one returns to its place. ErrUndoStale when the
// entry moved on.
func (s *Service) Undo(ctx context.Context, ch Change) (Memory, error) {
	for attempt := 0; ; attempt++ {
		m, err := s.Load(ctx, ch.Root)
		if err != nil {
			return m, err
		}
		entries, err := undo(m.Entries, ch)
		if err != nil {
			return m, err
		}
		saved, err := s.Save(ctx, m, entries)
		if errors.Is(err, ErrConflict) && attempt == 0 {
			continue
		}
		return saved, err
	}
}

func undo(entries []Entry, ch Change) ([]Entry, error) {
	out := append([]Entry(nil), entries...)
	switch ch.Action {
	case ActionAdd, ActionReplace:
		if ch.After == nil {
			return nil, errors.New("this change cannot be undone: it does not say what it wrote")
		}
		i := indexOf(out, ch.After.ID)
		if i < 0 || !sameText(out[i], *ch.After) {
			return nil, ErrUndoStale
		}
		if ch.Action == ActionAdd {
			return append(out[:i], out[i+1:]...), nil
		}
		if ch.Before == nil {
			return nil, errors.New("this change cannot be undone: it does not say what it replaced")
		}
		out[i] = *ch.Before
		return out, nil
	case ActionRemove:
		if ch.Before == nil {
			return nil, errors.New("this change cannot be undone: it does not say what it removed")
		}
		if indexOf(out, ch.Before.ID) >= 0 {
			return nil, ErrUndoStale
		}
		i := min(max(ch.Index, 0), len(out))
		return append(out[:i], append([]Entry{*ch.Before}, out[i:]...)...), nil
	}
	return nil, fmt.Errorf("this change cannot be undone: unknown action %q", ch.Action)
}
