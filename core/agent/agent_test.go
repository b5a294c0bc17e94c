package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/store"
)

func tempRoot(t testing.TB) string {
	t.Helper()
	d, _ := filepath.EvalSymlinks(t.TempDir())
	return d
}

func call(name string, args any) ToolCall {
	b, _ := json.Marshal(args)
	return ToolCall{ID: "x", Name: name, Args: b}
}

// A write through a link that leads out is refused (confine.Path's own
// cases are in core/confine) and writes nothing outside.
func TestWriteThroughALinkOutIsRefused(t *testing.T) {
	root := tempRoot(t)
	outside := tempRoot(t)
	os.Symlink(outside, filepath.Join(root, "out"))
	res := runTool(context.Background(), root, call("write", map[string]string{"path": "out/new.txt", "content": "x"}))
	if !res.IsError || !strings.Contains(res.Text, "outside the project root") {
		t.Errorf("write through a link out: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Error("a file was written outside the root")
	}
}

func TestReadCutAndContinue(t *testing.T) {
	root := tempRoot(t)
	var b strings.Builder
	for i := 1; i <= 2500; i++ {
		b.WriteString("line\n")
	}
	os.WriteFile(filepath.Join(root, "big.txt"), []byte(b.String()), 0o644)
	res := runTool(context.Background(), root, call("read", map[string]any{"path": "big.txt"}))
	if res.IsError || res.FullRead || !strings.Contains(res.Text, "Continue with offset 2001") {
		t.Fatalf("first read: full=%v %q", res.FullRead, res.Text[len(res.Text)-80:])
	}
	res = runTool(context.Background(), root, call("read", map[string]any{"path": "big.txt", "offset": 2001}))
	if res.IsError || strings.Count(res.Text, "line\n") != 500 || strings.Contains(res.Text, "Continue") {
		t.Errorf("second read: %q", res.Text[:40])
	}
	os.WriteFile(filepath.Join(root, "small.txt"), []byte("hello\n"), 0o644)
	if res := runTool(context.Background(), root, call("read", map[string]any{"path": "small.txt"})); !res.FullRead || res.Text != "hello\n" {
		t.Errorf("small read = %+v", res)
	}
}

func TestEditAndWrite(t *testing.T) {
	root := tempRoot(t)
	p := filepath.Join(root, "a.go")
	os.WriteFile(p, []byte("one two two\n"), 0o600)
	for _, c := range []struct {
		args map[string]string
		want string
	}{
		{map[string]string{"path": "a.go", "oldText": "three", "newText": "x"}, "was not found"},
		{map[string]string{"path": "a.go", "oldText": "two", "newText": "x"}, "occurs 2 times"},
		{map[string]string{"path": "missing.go", "oldText": "a", "newText": "b"}, "no such file"},
	} {
		if res := runTool(context.Background(), root, call("edit", c.args)); !res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("edit %v = %+v", c.args, res)
		}
	}
	if res := runTool(context.Background(), root, call("edit", map[string]string{"path": "a.go", "oldText": "one", "newText": "1"})); res.IsError {
		t.Fatal(res.Text)
	}
	data, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(data) != "1 two two\n" || fi.Mode().Perm() != 0o600 {
		t.Errorf("after edit: %q %v", data, fi.Mode())
	}
	if res := runTool(context.Background(), root, call("write", map[string]string{"path": "dir/new.txt", "content": "x"})); res.IsError || !res.Wrote {
		t.Errorf("write = %+v", res)
	}
	if res := runTool(context.Background(), root, call("bash", map[string]any{"command": "pwd; exit 3"})); !res.IsError || !strings.Contains(res.Text, root) || !strings.Contains(res.Text, "Exit status 3") {
		t.Errorf("bash = %+v", res)
	}
	if res := runTool(context.Background(), root, call("grep", map[string]any{"pattern": "two"})); !strings.Contains(res.Text, "a.go:1:") {
		t.Errorf("grep = %+v", res)
	}
}

// harness: a real session in a real store, and a fake model.
type harness struct {
	t    testing.TB
	st   *store.Store
	sess *sessions.Session
	sm   *sessions.Manager
	ag   *Agent
	root string
	fake *fakemodel.Server
	evs  chanEvents
}

// chanEvents publishes the agent's events into a channel the test reads.
type chanEvents chan events.Event

func (c chanEvents) Publish(e events.Event) { c <- e }

func newHarness(t testing.TB, script fakemodel.Script, cfg func(*Config)) *harness {
	t.Helper()
	base := tempRoot(t)
	st, err := store.Open(context.Background(), filepath.Join(base, "db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	root := filepath.Join(base, "proj")
	os.MkdirAll(root, 0o755)
	p, _, err := registry.NewRegistry(st, t.TempDir()).Add(context.Background(), root, "", true)
	if err != nil {
		t.Fatal(err)
	}
	sm := sessions.NewManager(st, sessions.Config{AgentDir: filepath.Join(base, "agent")})
	sess, err := sm.Create(context.Background(), p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	fake := fakemodel.New(t, script)
	client, err := provider.New(pisettings.ProviderConfig{Name: "fake", API: "openai-completions", BaseURL: fake.URL, APIKey: "k"},
		func(string) string { return "" }, provider.Options{MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, st: st, sess: sess, sm: sm, root: root, fake: fake, evs: make(chanEvents, 1000)}
	c := Config{Session: sess, Root: root, Client: client, Model: provider.Model{Provider: "fake", ID: "m1", ContextWindow: 100000},
		System: "sys", Permission: toolpolicy.PermissionFullAuto, Events: h.evs}
	if cfg != nil {
		cfg(&c)
	}
	h.ag = New(c)
	_ = paths.Places{}
	return h
}

func types(s *sessions.Session) string {
	var out []string
	for _, e := range s.Path() {
		out = append(out, e.Type)
	}
	return strings.Join(out, ",")
}

func TestAbortMidStreamLeavesAConsistentSession(t *testing.T) {
	hold := make(chan struct{})
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Text: "partial answer that never ends", Hold: hold}
		}
		return fakemodel.Reply{Text: "fresh answer"}
	}
	h := newHarness(t, script, nil)
	done := make(chan Result, 1)
	go func() {
		res, _ := h.ag.Prompt(context.Background(), "start")
		done <- res
	}()
	for e := range h.evs { // the first delta has arrived: abort mid-stream
		if _, ok := e.(events.TextDelta); ok {
			break
		}
	}
	h.ag.Abort()
	res := <-done
	close(hold)
	if !res.Aborted {
		t.Fatalf("result = %+v", res)
	}
	path := h.sess.Path()
	if types(h.sess) != "user,assistant" {
		t.Fatalf("entries = %s", types(h.sess))
	}
	var sm entries.StoredMessage
	json.Unmarshal(path[1].Payload(), &sm)
	if !sm.Partial || sm.StopReason != provider.StopAborted || !strings.HasPrefix(textOf(sm.Message), "partial") {
		t.Errorf("aborted answer stored as %+v", sm)
	}
	// The session resumes, in a new agent over the reopened session too.
	reopened, err := h.sm.Open(context.Background(), h.sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	h2 := New(Config{Session: reopened, Root: h.root, Client: h.ag.cfg.Client, Model: h.ag.cfg.Model, Permission: toolpolicy.PermissionFullAuto})
	res2, err := h2.Prompt(context.Background(), "continue")
	if err != nil || res2.Text != "fresh answer" {
		t.Fatalf("resume = %+v, %v", res2, err)
	}
	msgs := Messages(reopened.Context())
	if len(msgs) != 4 || msgs[1].Role != provider.RoleAssistant {
		t.Errorf("resumed context = %+v", msgs)
	}
}

func TestAbortBetweenToolCallsRecordsResults(t *testing.T) {
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{
				{ID: "slow", Name: "bash", Args: map[string]any{"command": "sleep 30"}},
				{ID: "next", Name: "ls", Args: map[string]any{}},
			}}
		}
		return fakemodel.Reply{Text: "after"}
	}
	h := newHarness(t, script, nil)
	done := make(chan Result, 1)
	go func() {
		res, _ := h.ag.Prompt(context.Background(), "go")
		done <- res
	}()
	for e := range h.evs {
		if e, ok := e.(events.ToolStarted); ok && e.ToolName == "bash" {
			break
		}
	}
	h.ag.Abort()
	select {
	case res := <-done:
		if !res.Aborted {
			t.Fatalf("not aborted: %+v", res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("abort did not stop the running command")
	}
	if got := types(h.sess); got != "user,assistant,tool_result,tool_result" {
		t.Errorf("entries = %s (every call needs a result)", got)
	}
	if res, err := h.ag.Prompt(context.Background(), "again"); err != nil || res.Text != "after" {
		t.Errorf("next prompt = %+v %v", res, err)
	}
}

func TestCompactionAndBranching(t *testing.T) {
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if strings.Contains(req.Raw, "Summarise the conversation above") {
			return fakemodel.Reply{Text: "SUMMARY: the user said hello twice."}
		}
		return fakemodel.Reply{Text: "answer " + string(rune('A'+n))}
	}
	h := newHarness(t, script, nil)
	h.ag.Prompt(context.Background(), "hello")
	h.ag.Prompt(context.Background(), "hello again")
	summary, err := h.ag.Compact(context.Background(), "")
	if err != nil || !strings.Contains(summary, "SUMMARY") {
		t.Fatalf("compact = %q, %v", summary, err)
	}
	res, _ := h.ag.Prompt(context.Background(), "third")
	reqs := h.fake.Requests()
	last := reqs[len(reqs)-1].Raw
	if !strings.Contains(last, "SUMMARY: the user said hello twice.") || strings.Contains(last, `"hello"`) || !strings.Contains(last, "hello again") {
		t.Errorf("after compaction the request should carry the summary and the kept tail:\n%s", last)
	}
	if res.Text == "" {
		t.Error("no answer after compaction")
	}
	var comp sessions.Compaction
	for _, e := range h.sess.Path() {
		if e.Type == sessions.TypeCompaction {
			json.Unmarshal(e.Payload(), &comp)
		}
	}
	if comp.FirstKeptEntryID == "" || comp.TokensBefore == 0 {
		t.Errorf("compaction entry = %+v", comp)
	}

	// Branch to before the second prompt: the old branch stays.
	first := h.sess.Path()[1] // the first answer
	if err := h.sess.Branch(context.Background(), first.ID); err != nil {
		t.Fatal(err)
	}
	h.ag.Prompt(context.Background(), "another way")
	if got := types(h.sess); got != "user,assistant,user,assistant" {
		t.Errorf("branch path = %s", got)
	}
	if len(h.sess.Entries()) < 9 {
		t.Errorf("the old branch was lost: %d entries", len(h.sess.Entries()))
	}
}

func TestUnknownToolAndDenials(t *testing.T) {
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "a", Name: "rm_rf", Args: map[string]any{}}, {ID: "b", Name: "bash", Args: map[string]any{"command": "touch x"}}}}
		}
		return fakemodel.Reply{Text: req.LastToolResult}
	}
	asked := 0
	h := newHarness(t, script, func(c *Config) {
		c.Permission = toolpolicy.PermissionAutoEdits
		c.Approve = func(ctx context.Context, a toolpolicy.Approval) (bool, error) {
			asked++
			return a.Command != "touch x", nil
		}
	})
	res, _ := h.ag.Prompt(context.Background(), "do it")
	if asked != 1 || !strings.Contains(res.Text, "denied") {
		t.Errorf("asked %d, answer %q", asked, res.Text)
	}
	if _, err := os.Stat(filepath.Join(h.root, "x")); err == nil {
		t.Error("a denied command ran")
	}
}

// TestAbsoluteLinksInsideTheProjectStillWork: os.Root refuses absolute
// links, but the tools resolve paths first, so a project whose links are
// absolute and stay inside works as before.
func TestAbsoluteLinksInsideTheProjectStillWork(t *testing.T) {
	root := tempRoot(t)
	os.MkdirAll(filepath.Join(root, "real", "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "real", "a.txt"), []byte("alpha\n"), 0o644)
	os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "lnk"))
	os.Symlink(filepath.Join(root, "real", "a.txt"), filepath.Join(root, "file-link"))
	ctx := context.Background()
	for _, c := range []struct {
		name string
		args map[string]string
		want string
	}{
		{"read", map[string]string{"path": "lnk/a.txt"}, "alpha"},
		{"read", map[string]string{"path": "file-link"}, "alpha"},
		{"write", map[string]string{"path": "lnk/sub/new.txt", "content": "beta\n"}, "Wrote 5 bytes to real/sub/new.txt"},
		{"edit", map[string]string{"path": "file-link", "oldText": "alpha", "newText": "gamma"}, "Edited real/a.txt"},
		{"ls", map[string]string{"path": "lnk"}, "a.txt\nsub/"},
		{"grep", map[string]string{"pattern": "gamma|beta", "path": "lnk"}, "real/a.txt:1: gamma\nreal/sub/new.txt:1: beta"},
		{"find", map[string]string{"pattern": "*.txt", "path": "lnk"}, "real/a.txt\nreal/sub/new.txt"},
	} {
		if res := runTool(ctx, root, call(c.name, c.args)); res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s %v = %+v", c.name, c.args, res)
		}
	}
	if data, err := confine.ReadPreview(root, "lnk/a.txt", 100); err != nil || string(data) != "gamma\n" {
		t.Errorf("ReadPreview = %q, %v", data, err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "file-link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the edit replaced the link instead of its target")
	}
}
