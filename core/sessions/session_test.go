package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/store"
)

const piRoot = "/home/user/src/proj" // the cwd of the real pi files in testdata

type env struct {
	st    *store.Store
	m     *Manager
	agent string
	root  string
}

// setup returns a store with project p1 (root root) and a Manager whose
// agent folder is a temp dir.
func setup(t testing.TB, root string) env {
	t.Helper()
	base := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(base, store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, _, err := st.InsertProject(context.Background(), store.ProjectRow{ID: "p1", Name: "one", Root: root, CreatedAt: 1}); err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(base, "agent")
	return env{st: st, m: NewManager(st, Config{AgentDir: agent}), agent: agent, root: root}
}

func msg(role provider.Role, parts ...provider.Part) entries.StoredMessage {
	return entries.StoredMessage{Message: provider.Message{Role: role, Parts: parts}}
}

func text(s string) provider.Part { return provider.Part{Type: provider.PartText, Text: s} }

func mustAppend(t testing.TB, s *Session, typ string, payload any) Entry {
	t.Helper()
	e, err := s.Append(context.Background(), typ, payload)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func types(es []Entry) string {
	var b []string
	for _, e := range es {
		b = append(b, e.Type)
	}
	return strings.Join(b, " ")
}

// A session begun in pi-tui is a pi v3 file in pi's folder for the
// project, with pi's message shapes, which pisession (pi's reading rules)
// reads back as the same conversation; nothing is written before the first
// prompt.
func TestSessionIsAPiFileInPisFolder(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	s, err := e.m.Create(ctx, "p1", "")
	if err != nil {
		t.Fatal(err)
	}
	dir := pisession.SessionsDir(e.agent, e.root)
	if list, _ := e.m.List(ctx, "p1"); len(list) != 0 {
		t.Fatalf("a session with no prompt is listed: %+v", list)
	}
	if _, err := os.Stat(s.File()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file exists before the first prompt: %v", err)
	}
	if o, err := e.m.Open(ctx, s.ID()); err != nil || o != s {
		t.Fatalf("the unsent session does not open in its manager: %v", err)
	}
	mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("read x")))
	if filepath.Dir(s.File()) != dir {
		t.Errorf("file %s is not in pi's folder %s", s.File(), dir)
	}
	call := provider.Part{Type: provider.PartToolCall, ToolCallID: "c1", ToolName: "read", Arguments: json.RawMessage(`{"path":"x"}`)}
	a := msg(provider.RoleAssistant, text("reading"), call)
	a.StopReason, a.Model, a.Usage = provider.StopToolUse, "anthropic/claude-x", &provider.Usage{InputTokens: 3, OutputTokens: 2}
	mustAppend(t, s, TypeAssistant, a)
	r := msg(provider.RoleTool, provider.Part{Type: provider.PartToolResult, ToolCallID: "c1", ToolName: "read", Text: "contents"})
	r.Tool, r.Path, r.Preflight, r.ToolMs = "read", "x", &events.Preflight{Ms: 1, Cache: "hit", Labels: []string{"AGENTS.md"}}, 2.5
	tr := mustAppend(t, s, TypeToolResult, r)
	mustAppend(t, s, TypeCustom, map[string]any{"kind": "subdir_context", "toolResultId": tr.ID})
	mustAppend(t, s, TypeCustom, record{Kind: kindThinking, ThinkingLevel: "high"})
	fin := msg(provider.RoleAssistant, text("done"))
	fin.StopReason, fin.Model = provider.StopEnd, "anthropic/claude-x"
	mustAppend(t, s, TypeAssistant, fin)
	u2 := mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("more")))
	mustAppend(t, s, TypeCompaction, Compaction{Summary: "earlier", FirstKeptEntryID: u2.ID, TokensBefore: 50})
	if err := s.SetTitle(ctx, "My work"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	ps, err := pisession.Open(ctx, s.File(), pisession.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	if ps.Header().Cwd != e.root || ps.Name() != "My work" || ps.Settings().ThinkingLevel != "high" {
		t.Errorf("header cwd %q, name %q, settings %+v", ps.Header().Cwd, ps.Name(), ps.Settings())
	}
	var roles []string
	for _, pe := range ps.Path() {
		if pe.Type == pisession.TypeMessage {
			m, _ := pe.Message()
			roles = append(roles, m.Role)
			if m.Role == pisession.RoleAssistant && (m.Provider != "anthropic" || m.Model != "claude-x" || m.API != "anthropic-messages") {
				t.Errorf("assistant provider/model/api = %s/%s/%s", m.Provider, m.Model, m.API)
			}
			if m.Role == pisession.RoleAssistant && m.Content.Parts[len(m.Content.Parts)-1].Type == pisession.PartToolCall && m.StopReason != "toolUse" {
				t.Errorf("stopReason = %q, want toolUse", m.StopReason)
			}
		} else {
			roles = append(roles, pe.Type)
		}
	}
	want := "user assistant toolResult custom custom thinking_level_change assistant user compaction session_info"
	if strings.Join(roles, " ") != want {
		t.Errorf("pi reads the branch as\n%s\nwant\n%s", strings.Join(roles, " "), want)
	}
	c, _ := ps.Context()
	if len(c.Messages) != 2 || c.Messages[1].EntryID != u2.ID {
		t.Errorf("pi's context has %d messages", len(c.Messages))
	}

	// Reopened in pi-tui: the same tree, the tool result's extras back.
	o, err := NewManager(e.st, Config{AgentDir: e.agent}).Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if got := types(o.Path()); got != "user assistant tool_result custom custom assistant user compaction" {
		t.Errorf("path = %s", got)
	}
	got, _ := o.Get(tr.ID)
	var sm entries.StoredMessage
	json.Unmarshal(got.Payload(), &sm)
	if sm.Path != "x" || sm.ToolMs != 2.5 || sm.Preflight == nil || !slices.Equal(sm.Preflight.Labels, []string{"AGENTS.md"}) {
		t.Errorf("tool result extras lost: %s", got.Payload())
	}
	if got := types(o.Context()); got != "compaction user" || o.Title() != "My work" {
		t.Errorf("context = %s, title %q", got, o.Title())
	}
}

// installFixture puts a session file the real pi wrote into pi's folder for
// the project and returns its path.
func installFixture(t *testing.T, e env, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := pisession.SessionsDir(e.agent, e.root)
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Sessions the real pi wrote (a compaction, a name, model and thinking
// changes; an extension's custom and custom_message entries, a label and a
// branch with its summary) are listed, open on pi's active branch with pi's
// context, and continue in pi-tui without a byte of what pi wrote changing.
func TestSessionsWrittenByPiOpenAndContinue(t *testing.T) {
	for _, name := range []string{"pi085_rpc_compaction_name_model_thinking.jsonl", "pi085_ext_custom_label_custommsg_branchsummary.jsonl"} {
		t.Run(name, func(t *testing.T) {
			e := setup(t, piRoot)
			ctx := context.Background()
			path := installFixture(t, e, name)
			before, _ := os.ReadFile(path)
			list, err := e.m.List(ctx, "p1")
			if err != nil || len(list) != 1 || list[0].Problem != "" {
				t.Fatalf("list = %+v, %v", list, err)
			}
			s, err := e.m.Open(ctx, list[0].ID[:8])
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ps, _ := pisession.Open(ctx, path, pisession.Options{ReadOnly: true})
			pc, _ := ps.Context()
			ps.Close()
			ours := s.Context()
			if len(ours) != len(pc.Messages) {
				t.Fatalf("context has %d entries, pi's %d", len(ours), len(pc.Messages))
			}
			for i, cm := range pc.Messages {
				if ours[i].ID != cm.EntryID {
					t.Errorf("context[%d] = %s, pi's %s", i, ours[i].ID, cm.EntryID)
				}
			}
			if list[0].Title != ps.Name() {
				t.Errorf("title %q, want %q", list[0].Title, ps.Name())
			}
			mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("continued in pi-tui")))
			after, _ := os.ReadFile(path)
			if !bytes.HasPrefix(after, before) {
				t.Fatal("appending changed what pi wrote")
			}
			last := s.Context()
			if len(last) != len(ours)+1 {
				t.Errorf("the new prompt does not continue pi's branch: %d → %d", len(ours), len(last))
			}
		})
	}
}

// A folder with broken files lists each with a one-line reason, and the
// good one still opens; nothing is rewritten.
func TestBrokenFilesAreListedWithAReason(t *testing.T) {
	e := setup(t, piRoot)
	ctx := context.Background()
	installFixture(t, e, "pi085_rpc_compaction_name_model_thinking.jsonl")
	dir := pisession.SessionsDir(e.agent, e.root)
	bad := map[string]string{
		"2026-01-01T00-00-00-000Z_notjson.jsonl": "this is not json\n",
		"2026-01-01T00-00-01-000Z_badhead.jsonl": `{"type":"message","id":"a"}` + "\n",
		"2026-01-01T00-00-02-000Z_cycle.jsonl": `{"type":"session","version":3,"id":"cyc","timestamp":"2026-01-01T00:00:02.000Z","cwd":"` + piRoot + `"}` + "\n" +
			`{"type":"message","id":"a","parentId":"b","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"x"}}` + "\n" +
			`{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"y"}}` + "\n",
	}
	for n, c := range bad {
		os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644)
	}
	list, err := e.m.List(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	problems := 0
	for _, s := range list {
		if s.Problem != "" {
			problems++
			if strings.Contains(s.Problem, "\n") {
				t.Errorf("problem is not one line: %q", s.Problem)
			}
		} else if _, err := e.m.Open(ctx, s.ID); err != nil {
			t.Errorf("good session does not open: %v", err)
		}
	}
	if problems != len(bad) || len(list) != len(bad)+1 {
		t.Errorf("listed %d, %d with problems: %+v", len(list), problems, list)
	}
	for n, c := range bad {
		if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != c {
			t.Errorf("%s was rewritten", n)
		}
	}
}

// Two writers on one file: what the other appended is read before our
// append, continues the conversation, and Changed fires.
func TestTwoWritersNothingLost(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	a, _ := e.m.Create(ctx, "p1", "")
	defer a.Close()
	mustAppend(t, a, TypeUser, msg(provider.RoleUser, text("one")))
	b, err := NewManager(e.st, Config{AgentDir: e.agent}).Open(ctx, a.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	changed := a.Changed()
	reply := msg(provider.RoleAssistant, text("from b"))
	reply.StopReason = provider.StopEnd
	mustAppend(t, b, TypeAssistant, reply)
	mustAppend(t, a, TypeUser, msg(provider.RoleUser, text("two")))
	select {
	case <-changed:
	default:
		t.Error("Changed did not fire when b's entry arrived")
	}
	if got := types(a.Path()); got != "user assistant user" {
		t.Errorf("a's branch = %s; b's reply is lost or off the branch", got)
	}
	if n, err := b.Refresh(ctx); n != 1 || err != nil || types(b.Path()) != "user assistant user" {
		t.Errorf("b refresh: %d %v, path %s", n, err, types(b.Path()))
	}
}

// Branching writes pi's leaf marker, so a fresh open (pi or pi-tui)
// continues on the chosen branch.
func TestBranchSurvivesReopen(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	s, _ := e.m.Create(ctx, "p1", "")
	u1 := mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("one")))
	mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("two")))
	if err := s.Branch(ctx, u1.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Branch(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("branch to a missing entry: %v", err)
	}
	s.Close()
	o, err := NewManager(e.st, Config{AgentDir: e.agent}).Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if p := o.Path(); len(p) != 1 || p[0].ID != u1.ID {
		t.Errorf("reopened on %s, want the branch at %s", types(p), u1.ID)
	}
}

// Sessions an older pi-tui kept in the store become pi files once, with
// their branches, leaf, title and records; a second run (or a run after a
// crash) writes nothing twice, and the rows stay in the store.
func TestStoreSessionsMoveToPiFilesOnce(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	if _, err := e.st.CreateSession(ctx, "sold", "p1", "Old work"); err != nil {
		t.Fatal(err)
	}
	add := func(id, parent, typ string, payload any) {
		raw, _ := json.Marshal(payload)
		if _, err := e.st.AppendEntry(ctx, "sold", store.EntryRow{ID: id, ParentID: parent, Type: typ, Payload: raw}); err != nil {
			t.Fatal(err)
		}
	}
	add("u1", "", TypeUser, msg(provider.RoleUser, text("hello")))
	add("a1", "u1", TypeAssistant, msg(provider.RoleAssistant, text("hi")))
	r := msg(provider.RoleTool, provider.Part{Type: provider.PartToolResult, ToolCallID: "c", ToolName: "read", Text: "x"})
	r.Path, r.ToolMs = "f.go", 1
	add("t1", "a1", TypeToolResult, r)
	add("d1", "t1", TypeCustom, map[string]string{"kind": "subdir_context", "toolResultId": "t1"})
	add("u2", "u1", TypeUser, msg(provider.RoleUser, text("other branch")))
	if err := e.st.SetSessionLeaf(ctx, "sold", "d1"); err != nil {
		t.Fatal(err)
	}
	if err := e.m.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// A second manager (a restart) finds the marker; even without it the
	// file's id stops a second copy.
	e.st.CompareAndDeleteKV(ctx, migratedNamespace, migratedKey, "1")
	m2 := NewManager(e.st, Config{AgentDir: e.agent})
	if err := m2.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(pisession.SessionsDir(e.agent, e.root), "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("%d files after two runs", len(files))
	}
	s, err := m2.Open(ctx, "sold")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := types(s.Path()); got != "user assistant tool_result custom" || s.Title() != "Old work" {
		t.Errorf("moved session path %s, title %q", got, s.Title())
	}
	if len(s.Entries()) != 5 {
		t.Errorf("entries = %s", types(s.Entries()))
	}
	if _, rows, err := e.st.LoadSession(ctx, "sold"); err != nil || len(rows) != 5 {
		t.Errorf("store rows after the move: %d, %v", len(rows), err)
	}
	if lat, ok, _ := m2.Latest(ctx, "p1"); !ok || lat.ID != "sold" {
		t.Errorf("latest = %+v", lat)
	}
}

// One session folder (the sessionDir setting or pi's variable, as
// paths.SessionFolder finds it) holds every project's files; each project
// lists only its own.
func TestSessionDirSetting(t *testing.T) {
	e := setup(t, t.TempDir())
	shared := t.TempDir()
	other := t.TempDir()
	e.st.InsertProject(context.Background(), store.ProjectRow{ID: "p2", Name: "two", Root: other, CreatedAt: 1})
	m := NewManager(e.st, Config{AgentDir: e.agent, SessionDir: shared})
	ctx := context.Background()
	for _, p := range []string{"p1", "p2"} {
		s, _ := m.Create(ctx, p, "")
		mustAppend(t, s, TypeUser, msg(provider.RoleUser, text(p)))
		if filepath.Dir(s.File()) != shared {
			t.Errorf("file %s not in %s", s.File(), shared)
		}
		s.Close()
	}
	if l, _ := m.List(ctx, "p1"); len(l) != 1 || l[0].FirstMessage != "p1" {
		t.Errorf("p1 lists %+v", l)
	}
	_ = time.Second
}

// Payloads are translated on first use, not when the file is read; a line
// that pi's reader keeps but pi-tui cannot translate (a user message whose
// content is a number) still opens, is shown as unreadable and is never sent
// to the model, while its neighbours translate as usual.
func TestUntranslatableLineIsSkippedLazily(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	s, _ := e.m.Create(ctx, "p1", "")
	first := mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("first")))
	s.Close()
	bad := `{"type":"message","id":"bad00001","parentId":"` + first.ID + `","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":5}}` + "\n"
	f, err := os.OpenFile(s.File(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(bad)
	f.Close()
	o, err := e.m.Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	mustAppend(t, o, TypeUser, msg(provider.RoleUser, text("after")))
	path := o.Path()
	if types(path) != "user user user" {
		t.Fatalf("path = %s", types(path))
	}
	var sm entries.StoredMessage
	if err := json.Unmarshal(path[1].Payload(), &sm); err == nil {
		t.Errorf("the unreadable line decodes as a message: %+v", sm)
	}
	if err := json.Unmarshal(path[2].Payload(), &sm); err != nil || sm.Message.Parts[0].Text != "after" {
		t.Errorf("the next entry = %s, %v", path[2].Payload(), err)
	}
	if path[0].CreatedAt() == 0 || path[1].CreatedAt() != time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() {
		t.Errorf("timestamps %d, %d", path[0].CreatedAt(), path[1].CreatedAt())
	}
}

// The Projects list counts sessions from the store's index, which follows
// the files: a session pi began is counted once the folder is reconciled, a
// file removed by hand stops being counted, a session begun in pi-tui is
// counted from its first prompt, and a reconcile with nothing new changes
// nothing.
func TestIndexFollowsTheFiles(t *testing.T) {
	e := setup(t, piRoot)
	ctx := context.Background()
	count := func() int {
		t.Helper()
		ps, err := e.st.Projects(ctx, "")
		if err != nil || len(ps) != 1 {
			t.Fatalf("projects = %v, %v", ps, err)
		}
		return ps[0].Sessions
	}
	path := installFixture(t, e, "pi085_rpc_compaction_name_model_thinking.jsonl")
	if count() != 0 {
		t.Fatal("counted before the folder was read")
	}
	if changed, err := e.m.Reconcile(ctx); err != nil || !changed || count() != 1 {
		t.Fatalf("reconcile = %v, %v; count %d, want 1", changed, err, count())
	}
	if changed, err := e.m.Reconcile(ctx); err != nil || changed {
		t.Fatalf("a second reconcile = %v, %v; want no change", changed, err)
	}
	s, _ := e.m.Create(ctx, "p1", "")
	if count() != 1 {
		t.Fatal("a session with no prompt is counted")
	}
	mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("hi")))
	s.Close()
	if count() != 2 {
		t.Fatalf("count %d after the first prompt, want 2", count())
	}
	os.Remove(path)
	if changed, err := e.m.Reconcile(ctx); err != nil || !changed || count() != 1 {
		t.Fatalf("after removing pi's file: reconcile = %v, %v; count %d, want 1", changed, err, count())
	}
	// Listing the folder also brings the index in line.
	os.Remove(s.File())
	if _, err := e.m.List(ctx, "p1"); err != nil || count() != 0 {
		t.Fatalf("after listing an empty folder: %v; count %d", err, count())
	}
}

// The leaf a client sees (get_state's leafId) is an entry pi-tui shows, not
// the marker or name entry that ends the file; branching to a tool result
// keeps the result's extras on the new branch.
func TestLeafNamesAShownEntry(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	s, _ := e.m.Create(ctx, "p1", "")
	defer s.Close()
	mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("read it")))
	call := msg(provider.RoleAssistant, provider.Part{Type: provider.PartToolCall, ToolCallID: "c1", ToolName: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)})
	mustAppend(t, s, TypeAssistant, call)
	res := msg(provider.RoleTool, provider.Part{Type: provider.PartToolResult, ToolCallID: "c1", ToolName: "read", Text: "package a"})
	res.Path = "a.go"
	r := mustAppend(t, s, TypeToolResult, res)
	if s.Leaf() != r.ID {
		t.Fatalf("leaf %s, want the tool result %s (not its extras entry %s)", s.Leaf(), r.ID, s.pi.Leaf())
	}
	if err := s.SetTitle(ctx, "named"); err != nil {
		t.Fatal(err)
	}
	if s.Leaf() != r.ID {
		t.Errorf("after naming, leaf %s, want %s", s.Leaf(), r.ID)
	}
	mustAppend(t, s, TypeAssistant, msg(provider.RoleAssistant, text("done")))
	if err := s.Branch(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if s.Leaf() != r.ID {
		t.Errorf("after branching, leaf %s, want %s", s.Leaf(), r.ID)
	}
	mustAppend(t, s, TypeAssistant, msg(provider.RoleAssistant, text("again")))
	path := s.Path()
	var sm entries.StoredMessage
	json.Unmarshal(path[2].Payload(), &sm)
	if types(path) != "user assistant tool_result assistant" || sm.Path != "a.go" {
		t.Errorf("path %s; the result's path %q", types(path), sm.Path)
	}
}

// Branching to before a model or thinking-level change keeps the change:
// they are the session's settings, and hold on the new branch and after
// reopening.
func TestBranchKeepsModelAndThinking(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	s, _ := e.m.Create(ctx, "p1", "")
	u := mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("one")))
	mustAppend(t, s, TypeAssistant, msg(provider.RoleAssistant, text("two")))
	mustAppend(t, s, TypeModelChange, map[string]string{"model": "fake/m2"})
	mustAppend(t, s, TypeCustom, record{Kind: kindThinking, ThinkingLevel: "high"})
	if err := s.Branch(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if m, l := s.Chosen(); m != "fake/m2" || l != "high" {
		t.Errorf("after branching: %q %q", m, l)
	}
	s.Close()
	o, err := e.m.Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if m, l := o.Chosen(); m != "fake/m2" || l != "high" {
		t.Errorf("reopened: %q %q", m, l)
	}
	if types(o.Path()) != "user model_change custom" {
		t.Errorf("path %s", types(o.Path()))
	}
}

// A tool result read on its own first (Get, as the approval preview and
// rpc do) still gets its extras when the branch is listed, and reading
// payloads while the branch is listed elsewhere is safe (run with -race).
func TestExtrasSurviveAnEarlierRead(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	s, _ := e.m.Create(ctx, "p1", "")
	mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("read")))
	mustAppend(t, s, TypeAssistant, msg(provider.RoleAssistant, provider.Part{Type: provider.PartToolCall, ToolCallID: "c1", ToolName: "read", Arguments: json.RawMessage(`{"path":"a/b.go"}`)}))
	res := msg(provider.RoleTool, provider.Part{Type: provider.PartToolResult, ToolCallID: "c1", ToolName: "read", Text: "x"})
	res.Path, res.ToolMs = "a/b.go", 5
	r := mustAppend(t, s, TypeToolResult, res)
	s.Close()
	o, err := e.m.Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	got, _ := o.Get(r.ID)
	_ = got.Payload()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, x := range o.Entries() {
			_ = x.Payload()
		}
	}()
	for _, x := range o.Path() {
		_ = x.Payload()
	}
	<-done
	var sm entries.StoredMessage
	for _, x := range o.Entries() {
		if x.ID == r.ID {
			json.Unmarshal(x.Payload(), &sm)
		}
	}
	if sm.Path != "a/b.go" || sm.ToolMs != 5 {
		t.Errorf("extras lost after an earlier read: path %q, toolMs %v", sm.Path, sm.ToolMs)
	}
}

// A session that is not there is said in one sentence (no "not found"
// trailing it), and is still store.ErrNotFound to callers.
func TestMissingSessionIsOneSentence(t *testing.T) {
	e := setup(t, t.TempDir())
	_, err := e.m.Open(context.Background(), "00f08c66")
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if want := "there is no session 00f08c66; list them with pi-tui sessions list PROJECT"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

// A session is called by its name, else by what was typed in its first
// message: never by the files @ completion attached before the text.
func TestLabelIsTheTypedTextNotTheAttachment(t *testing.T) {
	first := "<file name=\"/src/a.go\">\npackage a\n</file>\nexplain the package\nand more"
	for _, c := range []struct{ name, first, want string }{
		{"", first, "explain the package"},
		{"my work", first, "my work"},
		{"", "plain question\nsecond line", "plain question"},
		{"", "", ""},
	} {
		if got := Label(c.name, c.first); got != c.want {
			t.Errorf("Label(%q, %q) = %q, want %q", c.name, c.first, got, c.want)
		}
	}
}
