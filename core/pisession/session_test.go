package pisession

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func userMsg(text string) Message {
	return Message{Role: RoleUser, Content: PartsContent(Part{Type: PartText, Text: text}), Timestamp: 1}
}

func assistantMsg(text string) Message {
	return Message{Role: RoleAssistant, Content: PartsContent(Part{Type: PartText, Text: text}),
		API: "openai-completions", Provider: "fake", Model: "fake-model", StopReason: "stop", Timestamp: 2}
}

func newSession(t *testing.T, deferred bool) (*Session, *clock) {
	t.Helper()
	c := newClock()
	s, err := Create(ctxT(t), filepath.Join(t.TempDir(), "sessions", EncodeCwd("/home/u/src/api")),
		NewSession{Cwd: "/home/u/src/api", Deferred: deferred}, Options{Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, c
}

// must(t)(s.AppendX(...)) returns the appended entry or fails the test.
func must(t testing.TB) func(Appended, error) Entry {
	return func(a Appended, err error) Entry {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a.Entry
	}
}

func TestPathsFollowPi(t *testing.T) {
	t.Parallel()
	if got := EncodeCwd("/home/u/src/api"); got != "--home-u-src-api--" {
		t.Errorf("EncodeCwd = %q", got)
	}
	if got := EncodeCwd(`C:\Users\me\proj`); got != "--C--Users-me-proj--" {
		t.Errorf("EncodeCwd(windows) = %q", got)
	}
	if got := SessionsDir("/a", "/x/y"); got != "/a/sessions/--x-y--" {
		t.Errorf("SessionsDir = %q", got)
	}
	if got := FileName("2026-12-01T05:26:26.631Z", "01a23011-8e46-7381-9de4-d0fcea7d455e"); got != "2026-12-01T05-26-26-631Z_01a23011-8e46-7381-9de4-d0fcea7d455e.jsonl" {
		t.Errorf("FileName = %q", got)
	}
	id, err := NewSessionID()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(id) {
		t.Errorf("session id %q is not a UUIDv7", id)
	}
}

// A session created at once is a file holding pi's header, named and placed
// as pi would; entries follow one line each, and reopening gives the same
// tree, leaf and context.
func TestCreateAppendReopen(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t, false)
	data := readFile(t, s.File())
	if !regexp.MustCompile(`^\{"type":"session","version":3,"id":"[0-9a-f-]{36}","timestamp":"2026-12-01T05:00:00\.001Z","cwd":"/home/u/src/api"\}\n$`).MatchString(data) {
		t.Fatalf("header line = %q", data)
	}
	if want := FileName("2026-12-01T05:00:00.001Z", s.ID()); filepath.Base(s.File()) != want {
		t.Errorf("file name %s, want %s", filepath.Base(s.File()), want)
	}
	if filepath.Base(filepath.Dir(s.File())) != "--home-u-src-api--" {
		t.Errorf("folder %s", filepath.Dir(s.File()))
	}
	ctx := ctxT(t)
	mc := must(t)(s.AppendModelChange(ctx, "fake", "fake-model"))
	u := must(t)(s.AppendMessage(ctx, userMsg("hello <there> & you")))
	a := must(t)(s.AppendMessage(ctx, assistantMsg("hi")))
	if u.ParentID != mc.ID || a.ParentID != u.ID || mc.ParentID != "" {
		t.Errorf("parents: %s←%s←%s", mc.ParentID, u.ParentID, a.ParentID)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(u.ID) {
		t.Errorf("entry id %q is not 8 hex characters", u.ID)
	}
	if !strings.Contains(string(u.Raw), `"hello <there> & you"`) {
		t.Errorf("text was HTML-escaped (pi writes it as is): %s", u.Raw)
	}
	if !regexp.MustCompile(`"timestamp":"2026-12-01T05:00:00\.\d{3}Z"`).Match(u.Raw) {
		t.Errorf("timestamp not ISO with milliseconds: %s", u.Raw)
	}
	s.Close()

	r := mustOpen(t, s.File())
	if r.Leaf() != a.ID {
		t.Errorf("reopened leaf %s, want %s", r.Leaf(), a.ID)
	}
	if got := ids(r.Path()); got != mc.ID+" "+u.ID+" "+a.ID {
		t.Errorf("path %s", got)
	}
	c, err := r.Context()
	if err != nil {
		t.Fatal(err)
	}
	if got := contextTexts(t, c); !reflect.DeepEqual(got, []string{"user:hello <there> & you", "assistant:hi"}) {
		t.Errorf("context %q", got)
	}
	m, err := r.Path()[2].Message()
	if err != nil || m.Provider != "fake" || m.Usage == nil {
		t.Errorf("assistant decodes as %+v, %v", m, err)
	}
}

// Each append writes exactly its own line at the end: the bytes before it
// are untouched, including lines of types and members pi-tui does not know.
func TestAppendWritesOnlyTheNewLineAndKeepsUnknowns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	orig := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p","futureHeader":{"x":1}}
{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1,"mood":"curious"},"extra":[1,2]}
{"type":"hologram","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"2026-01-01T00:00:02.000Z","payload":{"deep":{"er":true}}}
{"type":"message","id":"cccccccc","parentId":"bbbbbbbb","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"bashExecution","command":"ls","output":"a","exitCode":2,"timestamp":3}}
`
	writeFile(t, path, orig)
	s := mustOpen(t, path)
	if len(s.Warnings()) != 0 {
		t.Errorf("warnings: %q", s.Warnings())
	}
	e := must(t)(s.AppendMessage(ctxT(t), userMsg("next")))
	got := readFile(t, path)
	if !strings.HasPrefix(got, orig) {
		t.Fatalf("earlier bytes changed:\n%s", got)
	}
	if rest := got[len(orig):]; rest != string(e.Raw)+"\n" {
		t.Errorf("appended %q, want exactly the entry's line", rest)
	}
	if e.ParentID != "cccccccc" {
		t.Errorf("parent %s", e.ParentID)
	}
	h, _ := s.Get("bbbbbbbb")
	if h.Type != "hologram" || !strings.Contains(string(h.Raw), `"deep":{"er":true}`) {
		t.Errorf("unknown entry = %+v", h)
	}
	m, _ := s.Get("aaaaaaaa")
	msg, err := m.Message()
	if err != nil || string(msg.ExtraMember("mood")) != `"curious"` || !msg.Content.IsText {
		t.Errorf("unknown message member lost: %+v %v", msg, err)
	}
	// Re-encoding a decoded message keeps its unknown member.
	b, _ := json.Marshal(msg)
	if !strings.Contains(string(b), `"mood":"curious"`) {
		t.Errorf("re-encoded message lost a member: %s", b)
	}
	c, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user:(string)hi", "user:Ran `ls`\n```\na\n```\n\nCommand exited with code 2", "user:next"}
	if got := contextTexts(t, c); !reflect.DeepEqual(got, want) {
		t.Errorf("context %q\nwant %q", got, want)
	}
}

// Deferred: nothing is on disk until the first assistant reply (pi's rule)
// or Flush (pi-tui's: a session exists once its first prompt is sent);
// then all lines at once, O_EXCL. Closing before that leaves nothing.
func TestDeferredCreation(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	s, _ := newSession(t, true)
	must(t)(s.AppendModelChange(ctx, "fake", "m"))
	u := must(t)(s.AppendMessage(ctx, userMsg("q")))
	if _, err := os.Stat(s.File()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("file exists before the first reply: %v", err)
	}
	if s.Persisted() {
		t.Error("Persisted before the file exists")
	}
	a := must(t)(s.AppendMessage(ctx, assistantMsg("r")))
	lines := strings.Split(strings.TrimSuffix(readFile(t, s.File()), "\n"), "\n")
	if len(lines) != 4 || !strings.Contains(lines[2], u.ID) || !strings.Contains(lines[3], a.ID) {
		t.Fatalf("file after first reply:\n%s", strings.Join(lines, "\n"))
	}
	if fi, _ := os.Stat(s.File()); fi.Mode().Perm() != 0o600 {
		t.Errorf("session file mode %v, want 0600 (sessions hold private text)", fi.Mode().Perm())
	}

	// Flush creates it after the first prompt; Close before leaves nothing.
	s2, _ := newSession(t, true)
	must(t)(s2.AppendMessage(ctx, userMsg("q")))
	if err := s2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(readFile(t, s2.File()), "\n"); got != 2 {
		t.Errorf("flushed file has %d lines, want 2", got)
	}
	s3, _ := newSession(t, true)
	must(t)(s3.AppendMessage(ctx, userMsg("never sent")))
	s3.Close()
	if _, err := os.Stat(s3.File()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a closed deferred session left a file: %v", err)
	}

	// An existing file of the same name is never overwritten.
	s4, _ := newSession(t, true)
	if err := os.MkdirAll(filepath.Dir(s4.File()), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, s4.File(), "precious\n")
	must(t)(s4.AppendMessage(ctx, userMsg("q")))
	if err := s4.Flush(ctx); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Flush over an existing file: %v", err)
	}
	if readFile(t, s4.File()) != "precious\n" {
		t.Error("an existing file was overwritten")
	}
}

// Branch moves the leaf; pi, which continues from the file's last entry,
// reopens on the same branch; the next append is a child of the chosen
// entry.
func TestBranchIsSeenAfterReopening(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	s, _ := newSession(t, false)
	u1 := must(t)(s.AppendMessage(ctx, userMsg("one")))
	a1 := must(t)(s.AppendMessage(ctx, assistantMsg("one!")))
	must(t)(s.AppendMessage(ctx, userMsg("two")))
	a2 := must(t)(s.AppendMessage(ctx, assistantMsg("two!")))

	// Moving to the file's last entry writes nothing.
	size := len(readFile(t, s.File()))
	if _, err := s.Branch(ctx, a2.ID); err != nil {
		t.Fatal(err)
	}
	if len(readFile(t, s.File())) != size {
		t.Error("Branch to the last entry wrote to the file")
	}

	mk, err := s.Branch(ctx, a1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s.Leaf() != a1.ID || ids(s.Path()) != u1.ID+" "+a1.ID {
		t.Fatalf("after Branch: leaf %s path %s", s.Leaf(), ids(s.Path()))
	}
	if mk.Entry.Type != TypeCustom || mk.Entry.ParentID != a1.ID {
		t.Fatalf("marker = %+v", mk.Entry)
	}
	s.Close()

	// pi's view: the last line's parent chain is the active branch.
	r := mustOpen(t, s.File())
	all := r.Entries()
	last := all[len(all)-1]
	if last.ParentID != a1.ID {
		t.Fatalf("the file's last entry (pi's leaf) hangs under %s, want %s", last.ParentID, a1.ID)
	}
	if r.Leaf() != a1.ID {
		t.Errorf("reopened leaf %s, want %s", r.Leaf(), a1.ID)
	}
	c, _ := r.Context()
	if got := contextTexts(t, c); !reflect.DeepEqual(got, []string{"user:one", "assistant:one!"}) {
		t.Errorf("context after reopening %q", got)
	}
	u3 := must(t)(r.AppendMessage(ctx, userMsg("three")))
	if u3.ParentID != a1.ID {
		t.Errorf("next append's parent %s, want %s", u3.ParentID, a1.ID)
	}
	if n := len(r.Children(a1.ID)); n != 3 {
		t.Errorf("a1 has %d children, want 3 (old branch, marker, new branch)", n)
	}

	// Before the first entry: the next append is a root.
	if _, err := r.Branch(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if r.Leaf() != "" || len(r.Path()) != 0 {
		t.Errorf("leaf %q path %d after Branch(\"\")", r.Leaf(), len(r.Path()))
	}
	root := must(t)(r.AppendMessage(ctx, userMsg("fresh")))
	if root.ParentID != "" {
		t.Errorf("root entry has parent %s", root.ParentID)
	}
	if _, err := r.Branch(ctx, "nope"); !errors.Is(err, ErrNoEntry) {
		t.Errorf("Branch to a missing entry: %v", err)
	}
}

// BranchWithSummary writes what pi's tree navigation writes; the summary
// reaches the model.
func TestBranchWithSummary(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	s, _ := newSession(t, false)
	u1 := must(t)(s.AppendMessage(ctx, userMsg("one")))
	must(t)(s.AppendMessage(ctx, assistantMsg("one!")))
	a := must(t)(s.BranchWithSummary(ctx, u1.ID, "tried things", nil))
	b, err := a.BranchSummary()
	if err != nil {
		t.Fatal(err)
	}
	if a.ParentID != u1.ID || b.FromID == u1.ID {
		t.Errorf("summary parent %s fromId %s", a.ParentID, b.FromID)
	}
	c, _ := s.Context()
	want := []string{"user:one", "user:" + branchPrefix + "tried things" + branchSuffix}
	if got := contextTexts(t, c); !reflect.DeepEqual(got, want) {
		t.Errorf("context %q", got)
	}
}

// Names, labels, model and thinking level as pi reads them.
func TestNameLabelsSettings(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	s, _ := newSession(t, false)
	u := must(t)(s.AppendMessage(ctx, userMsg("one")))
	must(t)(s.SetName(ctx, "  First  "))
	must(t)(s.SetLabel(ctx, u.ID, "start"))
	must(t)(s.AppendModelChange(ctx, "anthropic", "claude"))
	must(t)(s.AppendThinkingLevelChange(ctx, "high"))
	if s.Name() != "First" || s.Labels()[u.ID] != "start" {
		t.Errorf("name %q labels %v", s.Name(), s.Labels())
	}
	if got := s.Settings(); got != (Settings{"anthropic", "claude", "high"}) {
		t.Errorf("settings %+v", got)
	}
	must(t)(s.AppendMessage(ctx, assistantMsg("x")))
	if got := s.Settings(); got.Provider != "fake" || got.ModelID != "fake-model" {
		t.Errorf("an assistant reply names the model: %+v", got)
	}
	must(t)(s.SetName(ctx, ""))
	must(t)(s.SetLabel(ctx, u.ID, ""))
	if s.Name() != "" || len(s.Labels()) != 0 {
		t.Errorf("cleared: name %q labels %v", s.Name(), s.Labels())
	}
	if _, err := s.SetLabel(ctx, "zzzzzzzz", "x"); !errors.Is(err, ErrNoEntry) {
		t.Errorf("label on a missing entry: %v", err)
	}
	if _, err := s.Append(ctx, "custom", map[string]any{"id": "x"}, AppendOptions{}); err == nil {
		t.Error("a payload setting id was accepted")
	}
	if _, err := s.Append(ctx, "custom", json.RawMessage(`[1]`), AppendOptions{}); err == nil {
		t.Error("a payload that is not an object was accepted")
	}
}

// A compaction written by pi-tui gives the same context pi builds.
func TestCompactionContext(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	s, _ := newSession(t, false)
	must(t)(s.AppendMessage(ctx, userMsg("u1")))
	must(t)(s.AppendMessage(ctx, assistantMsg("a1")))
	must(t)(s.AppendCustom(ctx, "note", map[string]int{"n": 1}))
	must(t)(s.AppendCustomMessage(ctx, CustomMessage{CustomType: "ext", Content: TextContent("injected"), Display: true}))
	u2 := must(t)(s.AppendMessage(ctx, userMsg("u2")))
	must(t)(s.AppendMessage(ctx, assistantMsg("a2")))
	must(t)(s.AppendCompaction(ctx, Compaction{Summary: "S1", FirstKeptEntryID: u2.ID, TokensBefore: 10}))
	must(t)(s.AppendMessage(ctx, userMsg("u3")))
	must(t)(s.AppendMessage(ctx, assistantMsg("a3")))
	c, _ := s.Context()
	want := []string{"user:" + compactionPrefix + "S1" + compactionSuffix, "user:u2", "assistant:a2", "user:u3", "assistant:a3"}
	if got := contextTexts(t, c); !reflect.DeepEqual(got, want) {
		t.Errorf("context %q\nwant %q", got, want)
	}
	// A firstKeptEntryId that is not on the branch keeps nothing before it.
	a4 := must(t)(s.AppendCompaction(ctx, Compaction{Summary: "S2", FirstKeptEntryID: "gone0000"}))
	c, _ = s.Context()
	if got := contextTexts(t, c); !reflect.DeepEqual(got, []string{"user:" + compactionPrefix + "S2" + compactionSuffix}) {
		t.Errorf("context %q", got)
	}
	if c.Messages[0].EntryID != a4.ID {
		t.Errorf("summary's entry %s", c.Messages[0].EntryID)
	}
}

// Reading an old (version 1) file works in memory; the file is rewritten
// as version 3 (keeping unknown members) only before the first change.
func TestVersion1FileUpgradedOnFirstWrite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "old.jsonl")
	orig := `{"type":"session","id":"old1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}
{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1},"keepMe":7}
{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"hookMessage","content":"hook","timestamp":2}}
{"type":"message","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"b","timestamp":3}}
{"type":"compaction","timestamp":"2025-01-01T00:00:04.000Z","summary":"sum","firstKeptEntryIndex":3,"tokensBefore":5}
`
	writeFile(t, path, orig)
	s := mustOpen(t, path)
	if readFile(t, path) != orig {
		t.Fatal("opening rewrote the file")
	}
	c, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user:" + compactionPrefix + "sum" + compactionSuffix, "user:(string)b"}
	if got := contextTexts(t, c); !reflect.DeepEqual(got, want) {
		t.Errorf("context %q\nwant %q", got, want)
	}
	leaf := s.Leaf()
	must(t)(s.AppendMessage(ctxT(t), userMsg("c")))
	got := readFile(t, path)
	if !strings.Contains(got, `"version":3`) || !strings.Contains(got, `"keepMe":7`) || !strings.Contains(got, `"role":"custom"`) ||
		strings.Contains(got, "firstKeptEntryIndex") || !strings.Contains(got, `"firstKeptEntryId"`) {
		t.Errorf("upgraded file:\n%s", got)
	}
	r := mustOpen(t, path)
	if len(r.Warnings()) != 0 || r.Header().Version != 3 {
		t.Errorf("reopened upgraded file: v%d %q", r.Header().Version, r.Warnings())
	}
	if p := r.Path(); len(p) != 5 || p[3].ID != leaf {
		t.Errorf("upgraded path %s (old leaf %s)", ids(p), leaf)
	}
	c2, _ := r.Context()
	if got := contextTexts(t, c2); !reflect.DeepEqual(got, append(want, "user:c")) {
		t.Errorf("context after upgrade %q", got)
	}
}

func TestWriteSessionMigrationHelper(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "sess")
	c := newClock()
	d := SessionDraft{Created: c.now(), Cwd: "/p", Entries: []Draft{
		{Type: TypeMessage, ID: "a0000001", Timestamp: c.now(), Fields: map[string]any{"message": userMsg("hi")}},
		{Type: TypeMessage, ID: "a0000002", ParentID: "a0000001", Timestamp: c.now(), Fields: map[string]any{"message": assistantMsg("yo")}},
		{Type: "pi-tui-legacy", ID: "a0000003", ParentID: "a0000001", Fields: json.RawMessage(`{"x":{"y":1}}`)},
	}}
	path, err := WriteSession(ctxT(t), dir, d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, path)
	if s.Len() != 3 || s.Leaf() != "a0000003" || len(s.Warnings()) != 0 {
		t.Errorf("written session: %d entries, leaf %s, %q", s.Len(), s.Leaf(), s.Warnings())
	}
	if _, err := WriteSession(ctxT(t), dir, SessionDraft{ID: s.ID(), Created: d.Created}, Options{}); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second write over the same name: %v", err)
	}
	if s2 := mustOpen(t, path); s2.Len() != 3 {
		t.Error("the existing file was changed")
	}
	bad := SessionDraft{Entries: []Draft{{Type: "x", ID: "b", ParentID: "a"}}}
	if _, err := WriteSession(ctxT(t), dir, bad, Options{}); err == nil {
		t.Error("a parent after its child was accepted")
	}
	tmp, _ := filepath.Glob(filepath.Join(dir, ".pi-tui-*"))
	if len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// A payload given as indented JSON is written on one line.
func TestIndentedPayloadStaysOnOneLine(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t, false)
	e := must(t)(s.Append(ctxT(t), "thing", json.RawMessage("{\n  \"a\": [1,\n 2],\n  \"m\": {\"role\": \"x\"}\n}"), AppendOptions{}))
	data := readFile(t, s.File())
	if n := strings.Count(data, "\n"); n != 2 {
		t.Fatalf("%d lines:\n%s", n, data)
	}
	if !strings.HasSuffix(data, `"a":[1,2],"m":{"role":"x"}}`+"\n") || !strings.Contains(string(e.Raw), `"a":[1,2]`) {
		t.Errorf("line %s", e.Raw)
	}
}
