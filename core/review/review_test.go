package review

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
	"testing"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/store"
)

// rig is a data dir with one project, a session manager over pi's folder
// for it, and the service, whose store calls a test may stand in for.
type rig struct {
	t    *testing.T
	m    *sessions.Manager
	svc  *Service
	root string
	dir  string // the project's session folder
	pub  *recorder

	mu    sync.Mutex
	infos []checkpoints.SessionInfo // what the store was given, in order
	list  []checkpoints.Change      // what the stand-in store lists
	undos []checkpoints.Undo
	// undoErr is what the stand-in store's Undo returns.
	undoErr error
}

type recorder struct {
	mu  sync.Mutex
	got []events.Event
}

func (r *recorder) Publish(e events.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, e)
}

func (r *recorder) events() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

func newRig(t *testing.T) *rig {
	t.Helper()
	base := t.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(base, store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	root := filepath.Join(base, "proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.InsertProject(ctx, store.ProjectRow{ID: "p1", Name: "proj", Root: root, CreatedAt: 1}); err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(base, "agent")
	m := sessions.NewManager(st, sessions.Config{AgentDir: agent})
	r := &rig{t: t, m: m, root: root, dir: m.Dir(root), pub: &recorder{}}
	r.svc = New(checkpoints.Open(filepath.Join(base, "data", "checkpoints"), checkpoints.Limits{}), m, r.pub)
	r.svc.changes = func(_ context.Context, info checkpoints.SessionInfo) ([]checkpoints.Change, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.infos = append(r.infos, info)
		return slices.Clone(r.list), nil
	}
	r.svc.undo = func(_ context.Context, info checkpoints.SessionInfo, u checkpoints.Undo) (checkpoints.UndoResult, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.infos = append(r.infos, info)
		r.undos = append(r.undos, u)
		if r.undoErr != nil {
			return checkpoints.UndoResult{}, r.undoErr
		}
		return checkpoints.UndoResult{Changes: u.Changes, Files: []string{"a.txt"}}, nil
	}
	return r
}

// lastInfo is the SessionInfo the store was given last.
func (r *rig) lastInfo() checkpoints.SessionInfo {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.infos) == 0 {
		r.t.Fatal("the store was not called")
	}
	return r.infos[len(r.infos)-1]
}

// info asks for session id's changes and returns what the store was told.
func (r *rig) info(id string) checkpoints.SessionInfo {
	r.t.Helper()
	if _, err := r.svc.Changes(context.Background(), id); err != nil {
		r.t.Fatal(err)
	}
	return r.lastInfo()
}

// stored is the payload of a message entry.
type stored struct {
	Message    provider.Message `json:"message"`
	StopReason string           `json:"stopReason,omitempty"`
}

func add(t *testing.T, s *sessions.Session, typ string, payload any) string {
	t.Helper()
	e, err := s.Append(context.Background(), typ, payload)
	if err != nil {
		t.Fatal(err)
	}
	return e.ID
}

func user(t *testing.T, s *sessions.Session, text string) string {
	t.Helper()
	return add(t, s, sessions.TypeUser, stored{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: text}}}})
}

// call is an assistant message calling bash, and its result.
func call(t *testing.T, s *sessions.Session, id string) (assistant, result string) {
	t.Helper()
	args := json.RawMessage(`{"command":"echo hi > a.txt"}`)
	assistant = add(t, s, sessions.TypeAssistant, stored{Message: provider.Message{Role: provider.RoleAssistant,
		Parts: []provider.Part{{Type: provider.PartToolCall, ToolCallID: id, ToolName: "bash", Arguments: args}}}, StopReason: provider.StopToolUse})
	result = add(t, s, sessions.TypeToolResult, stored{Message: provider.Message{Role: provider.RoleTool,
		Parts: []provider.Part{{Type: provider.PartToolResult, ToolCallID: id, ToolName: "bash", Text: "ok"}}}})
	return assistant, result
}

func answer(t *testing.T, s *sessions.Session, text string) string {
	t.Helper()
	return add(t, s, sessions.TypeAssistant, stored{Message: provider.Message{Role: provider.RoleAssistant,
		Parts: []provider.Part{{Type: provider.PartText, Text: text}}}, StopReason: provider.StopEnd})
}

func (r *rig) create() *sessions.Session {
	r.t.Helper()
	s, err := r.m.Create(context.Background(), "p1", "")
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { s.Close() })
	return s
}

// fileIDs are the ids of the session file's lines after the header, in
// file order, as the file holds them.
func fileIDs(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		var e struct{ ID string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	return ids
}

// The store is given the session's entries in the file's order: every
// branch (one /tree left behind included), the entries a compaction
// summarised, the compaction itself and non-message entries, and not the
// markers pi-tui and pi keep for themselves (a name, the branch marker).
func TestChangesOrderIsTheFileOrderAcrossACompactionAndABranch(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	s := r.create()
	var want []string
	u1 := user(t, s, "make a.txt")
	a1, r1 := call(t, s, "c1")
	end1 := answer(t, s, "done")
	want = append(want, u1, a1, r1, end1)
	if err := s.SetTitle(ctx, "work"); err != nil { // session_info: not an entry pi-tui shows
		t.Fatal(err)
	}
	u2 := user(t, s, "and b.txt")
	a2, r2 := call(t, s, "c2")
	mc := add(t, s, sessions.TypeModelChange, map[string]string{"model": "fake/m2"})
	comp := add(t, s, sessions.TypeCompaction, sessions.Compaction{Summary: "made a.txt", FirstKeptEntryID: u2, TokensBefore: 10})
	want = append(want, u2, a2, r2, mc, comp)
	// /tree back to the first answer, and on from there.
	if err := s.Branch(ctx, end1); err != nil {
		t.Fatal(err)
	}
	// The model chosen after the branch point is chosen again on the new
	// branch (a model change entry).
	if again := s.Leaf(); again != end1 {
		want = append(want, again)
	}
	u3 := user(t, s, "no, c.txt")
	a3, r3 := call(t, s, "c3")
	want = append(want, u3, a3, r3)

	info := r.info(s.ID())
	if info.ID != s.ID() || len(info.Ancestors) != 0 {
		t.Errorf("info = %+v", info)
	}
	if !slices.Equal(info.Order, want) {
		t.Fatalf("order:\n%v\nwant\n%v", info.Order, want)
	}
	// It is the file's order: the file's ids, less the markers.
	var inFile []string
	for _, id := range fileIDs(t, s.File()) {
		if slices.Contains(want, id) {
			inFile = append(inFile, id)
		}
	}
	if !slices.Equal(inFile, info.Order) {
		t.Errorf("file order %v, given %v", inFile, info.Order)
	}
	if len(fileIDs(t, s.File())) <= len(want) {
		t.Errorf("the file has no markers; the test does not test leaving them out")
	}
}

// A session is named by its id or a unique prefix of one, as --session
// takes it; the store is told the whole id. One that is not there is a
// sentence saying how to find the sessions.
func TestChangesOfASessionByPrefixOrMissing(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	s := r.create()
	user(t, s, "hi")
	if info := r.info(s.ID()[:13]); info.ID != s.ID() || len(info.Order) != 1 {
		t.Errorf("by prefix: %+v", info)
	}
	_, err := r.svc.Changes(context.Background(), "0190ffff-nope")
	if err == nil || !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "pi-tui sessions list") {
		t.Errorf("missing session: %v", err)
	}
}

// A fork's ancestors are the sessions it was forked from, nearest first,
// found through the headers' parentSession; a parent whose file is gone
// ends the chain there.
func TestChangesAncestorsOfAFork(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	s := r.create()
	u1 := user(t, s, "make a.txt")
	a1, _ := call(t, s, "c1")
	answer(t, s, "done")
	f, err := r.m.Fork(ctx, s.ID(), a1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := r.m.Fork(ctx, f.ID(), a1)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	info := r.info(g.ID())
	if want := []string{f.ID(), s.ID()}; !slices.Equal(info.Ancestors, want) {
		t.Errorf("ancestors %v, want %v", info.Ancestors, want)
	}
	if want := []string{u1, a1}; !slices.Equal(info.Order, want) {
		t.Errorf("the fork's order %v, want %v", info.Order, want)
	}
	if err := os.Remove(s.File()); err != nil {
		t.Fatal(err)
	}
	if info := r.info(g.ID()); !slices.Equal(info.Ancestors, []string{f.ID()}) {
		t.Errorf("with the grandparent gone: %v", info.Ancestors)
	}
}

// writeHeader writes a session file holding only a header.
func writeHeader(t *testing.T, dir, id, parent string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := map[string]any{"type": "session", "version": 3, "id": id, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/x"}
	if parent != "" {
		h["parentSession"] = parent
	}
	line, _ := json.Marshal(h)
	path := filepath.Join(dir, pisession.FileName("2026-01-01T00:00:00.000Z", id))
	if err := os.WriteFile(path, append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Planted headers cost a bounded walk: a chain longer than 16 stops at
// 16, and two files naming each other stop at the loop.
func TestChangesAncestorsAreBounded(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	parent := ""
	var ids []string
	for i := range 20 {
		id := fmt.Sprintf("0190a0b0-0000-7000-8000-%012d", i)
		parent = writeHeader(t, r.dir, id, parent)
		ids = append(ids, id)
	}
	info := r.info(ids[19])
	if len(info.Ancestors) != maxAncestors || info.Ancestors[0] != ids[18] || info.Ancestors[15] != ids[3] {
		t.Errorf("ancestors of a chain of 20: %v", info.Ancestors)
	}

	loopA := filepath.Join(r.dir, pisession.FileName("2026-01-01T00:00:00.000Z", "0190a0b0-0000-7000-8000-00000000aaaa"))
	writeHeader(t, r.dir, "0190a0b0-0000-7000-8000-00000000bbbb", loopA)
	loopB := filepath.Join(r.dir, pisession.FileName("2026-01-01T00:00:00.000Z", "0190a0b0-0000-7000-8000-00000000bbbb"))
	writeHeader(t, r.dir, "0190a0b0-0000-7000-8000-00000000aaaa", loopB)
	if info := r.info("0190a0b0-0000-7000-8000-00000000aaaa"); !slices.Equal(info.Ancestors, []string{"0190a0b0-0000-7000-8000-00000000bbbb"}) {
		t.Errorf("ancestors of a loop: %v", info.Ancestors)
	}
}

// /undo's turn is the last user message on the current branch that a
// rewind would undo something after: an active own change made by it or
// later in the file. Undone changes, a parent's, and a branch left behind
// with nothing active after its messages do not count.
func TestUndoLastTurn(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	s := r.create()
	u1 := user(t, s, "make a.txt")
	a1, _ := call(t, s, "c1")
	end1 := answer(t, s, "done")
	u2 := user(t, s, "and b.txt")
	a2, _ := call(t, s, "c2")
	answer(t, s, "done")
	user(t, s, "thanks") // made nothing
	answer(t, s, "you're welcome")

	last := func() string {
		t.Helper()
		got, err := r.svc.LastTurn(ctx, s.ID())
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	change := func(n int, entry, state, session string) checkpoints.Change {
		return checkpoints.Change{N: n, Entry: entry, State: state, Session: session, Path: "a.txt"}
	}
	if got := last(); got != "" {
		t.Errorf("no changes: %q", got)
	}
	r.mu.Lock()
	r.list = []checkpoints.Change{change(1, "feedbeef", checkpoints.StateParent, "0190a0b0-parent"),
		change(1, a1, checkpoints.StateActive, s.ID()), change(2, a2, checkpoints.StateUndone, s.ID())}
	r.mu.Unlock()
	if got := last(); got != u1 {
		t.Errorf("with change 2 undone: %q, want %q (u1)", got, u1)
	}
	r.mu.Lock()
	r.list[2].State = checkpoints.StateActive
	r.mu.Unlock()
	if got := last(); got != u2 {
		t.Errorf("both active: %q, want %q (u2)", got, u2)
	}

	// Back to the first answer and on: u2 is on another branch now; its
	// change still lies after u1 in the file.
	if err := s.Branch(ctx, end1); err != nil {
		t.Fatal(err)
	}
	u4 := user(t, s, "c.txt instead")
	a4, _ := call(t, s, "c4")
	if got := last(); got != u1 {
		t.Errorf("after the branch, nothing active after u4: %q, want %q (u1)", got, u1)
	}
	r.mu.Lock()
	r.list = append(r.list, change(3, a4, checkpoints.StateActive, s.ID()))
	r.mu.Unlock()
	if got := last(); got != u4 {
		t.Errorf("after the branch, a4 active: %q, want %q (u4)", got, u4)
	}
	r.mu.Lock()
	r.list = []checkpoints.Change{change(1, a1, checkpoints.StateUndone, s.ID()), change(3, a4, checkpoints.StateUndone, s.ID())}
	r.mu.Unlock()
	if got := last(); got != "" {
		t.Errorf("all undone: %q", got)
	}
}

// Undo gives the store the same picture of the session, tells the views
// (ChangesUpdated) only when it undid, passes a refusal on as the store's
// *ConflictError, and refuses an entry the session does not hold or a
// request for both or neither before the store is asked.
func TestUndo(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	s := r.create()
	u1 := user(t, s, "make a.txt")
	a1, _ := call(t, s, "c1")

	res, err := r.svc.Undo(ctx, s.ID()[:8], checkpoints.Undo{To: u1})
	if err != nil || !slices.Equal(res.Files, []string{"a.txt"}) {
		t.Fatalf("undo --to: %+v, %v", res, err)
	}
	if info := r.lastInfo(); info.ID != s.ID() || !slices.Contains(info.Order, a1) {
		t.Errorf("undo was given %+v", info)
	}
	if evs := r.pub.events(); len(evs) != 1 || evs[0] != (events.ChangesUpdated{SessionID: s.ID()}) {
		t.Errorf("events after undo: %v", evs)
	}
	if _, err := r.svc.Undo(ctx, s.ID(), checkpoints.Undo{Changes: []int{1}, Redo: true, Force: true}); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	if u := r.undos[len(r.undos)-1]; !u.Redo || !u.Force || !slices.Equal(u.Changes, []int{1}) {
		t.Errorf("the store was asked %+v", u)
	}
	r.undoErr = &checkpoints.ConflictError{Conflicts: []checkpoints.Conflict{{Path: "a.txt", Reason: "changed since"}}}
	r.mu.Unlock()

	_, err = r.svc.Undo(ctx, s.ID(), checkpoints.Undo{Changes: []int{1}})
	var ce *checkpoints.ConflictError
	if !errors.As(err, &ce) || ce.Conflicts[0].Path != "a.txt" || err.Error() != ce.Error() {
		t.Errorf("a refusal: %v", err)
	}
	r.mu.Lock()
	r.undoErr = errors.New("disk full")
	r.mu.Unlock()
	if _, err := r.svc.Undo(ctx, s.ID(), checkpoints.Undo{Changes: []int{1}}); err == nil || !strings.Contains(err.Error(), "undo in session "+s.ID()+": disk full") {
		t.Errorf("a failure: %v", err)
	}
	if n := len(r.pub.events()); n != 2 {
		t.Errorf("%d events; a refused or failed undo tells no view", n)
	}

	calls := len(r.undos)
	for _, tc := range []struct {
		u    checkpoints.Undo
		want string
	}{
		{checkpoints.Undo{To: "deadbeef"}, "has no entry deadbeef; pi-tui sessions changes"},
		{checkpoints.Undo{}, "say what to undo"},
		{checkpoints.Undo{Changes: []int{1}, To: u1}, "not both"},
	} {
		if _, err := r.svc.Undo(ctx, s.ID(), tc.u); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("undo %+v: %v, want %q", tc.u, err, tc.want)
		}
	}
	if len(r.undos) != calls {
		t.Errorf("the store was asked about a bad request")
	}
}

// A session whose first prompt was not sent has no file and no changes;
// the manager's one handle of it, which its creator holds, stays open.
func TestChangesOfAnUnwrittenSessionLeaveItOpen(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	s := r.create()
	if info := r.info(s.ID()); info.ID != s.ID() || len(info.Order) != 0 || len(info.Ancestors) != 0 {
		t.Errorf("info = %+v", info)
	}
	if turn, err := r.svc.LastTurn(context.Background(), s.ID()); err != nil || turn != "" {
		t.Errorf("last turn %q, %v", turn, err)
	}
	user(t, s, "still writable")
	if _, err := os.Stat(s.File()); err != nil {
		t.Errorf("the session could not be written after review looked at it: %v", err)
	}
}

// Against the real store (nothing recorded), a session lists no changes
// and has no turn to undo.
func TestChangesWithTheRealStoreRecordingNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	svc := New(checkpoints.Open(t.TempDir(), checkpoints.Limits{}), r.m, r.pub)
	s := r.create()
	user(t, s, "hi")
	if list, err := svc.Changes(ctx, s.ID()); err != nil || len(list) != 0 {
		t.Errorf("changes %v, %v", list, err)
	}
	if turn, err := svc.LastTurn(ctx, s.ID()); err != nil || turn != "" {
		t.Errorf("last turn %q, %v", turn, err)
	}
}
