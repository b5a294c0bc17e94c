package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// End-to-end tests of review and undo (issue 23, ADR 0051) through the
// real CLI: real session files, real bash, real git repositories, and the
// checkpoint store in the data dir. Each asserts what a user sees: the
// list `sessions changes` prints and the files on disk after an undo.

// stepsScript plays one scripted turn per prompt: the turn whose key the
// user's message contains makes its steps' calls, one step per answer
// (step i is the model's i-th answer since that message), then says
// "Done.". A request to summarise (a compaction) gets a summary.
func stepsScript(turns map[string][][]fakemodel.Call) fakemodel.Script {
	keys := slices.Sorted(maps.Keys(turns))
	return func(n int, req fakemodel.Request) fakemodel.Reply {
		if summarising(req) {
			return fakemodel.Reply{Text: "Summary: files were written and edited."}
		}
		for _, k := range keys {
			if !strings.Contains(req.LastUser, k) {
				continue
			}
			if i := answersSinceUser(req); i < len(turns[k]) {
				return fakemodel.Reply{Calls: turns[k][i]}
			}
			break
		}
		return fakemodel.Reply{Text: "Done."}
	}
}

// summarising reports whether req asks for a compaction's summary, in
// either engine's words (the built-in engine's, or pi's summarisation
// system prompt).
func summarising(req fakemodel.Request) bool {
	return strings.Contains(req.Raw, "Summarise the conversation above") || strings.Contains(req.System, "context summarization assistant")
}

// answersSinceUser counts the assistant messages after the request's
// last user message (OpenAI's wire form, which both engines speak here).
func answersSinceUser(req fakemodel.Request) int {
	msgs, _ := req.Body["messages"].([]any)
	n := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		switch m["role"] {
		case "user":
			return n
		case "assistant":
			n++
		}
	}
	return n
}

// call is a fakemodel.Call in one line.
func call(id, tool string, args ...string) fakemodel.Call {
	in := map[string]string{}
	for i := 0; i+1 < len(args); i += 2 {
		in[args[i]] = args[i+1]
	}
	return fakemodel.Call{ID: id, Name: tool, Args: in}
}

// snapshot is every file and folder under root but .git, each with its
// mode and content: what a user would find there.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[filepath.ToSlash(rel)+"/"] = info.Mode().String()
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = info.Mode().String() + " " + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameFiles fails the test with the differences when the tree is not as
// it was (what is a description of when).
func sameFiles(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: %s is missing (want %q)", what, p, want[p])
		} else if g != want[p] {
			t.Errorf("%s: %s = %q, want %q", what, p, g, want[p])
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s is there and should not be (%q)", what, p, got[p])
		}
	}
}

// changesOf is `sessions changes ID --json`.
func changesOf(t *testing.T, c *cli, id string) []checkpoints.Change {
	t.Helper()
	var list []checkpoints.Change
	if err := json.Unmarshal([]byte(c.ok("sessions", "changes", id, "--json")), &list); err != nil {
		t.Fatalf("sessions changes --json: %v", err)
	}
	return list
}

// wantChange is what a test expects of one listed change.
type wantChange struct {
	n               int
	call, tool      string
	path, status    string
	added, removed  int
	state, fromSess string // fromSess "" means the listed session
}

// checkChanges compares the list with want, each change's entry being the
// assistant entry of the session file that made its call.
func checkChanges(t *testing.T, list []checkpoints.Change, want []wantChange, id string, calls map[string]string) {
	t.Helper()
	if len(list) != len(want) {
		t.Errorf("sessions changes lists %d changes, want %d: %+v", len(list), len(want), list)
		return
	}
	for i, w := range want {
		g := list[i]
		sess := id
		if w.fromSess != "" {
			sess = w.fromSess
		}
		if g.N != w.n || g.ToolCallID != w.call || g.Tool != w.tool || g.Path != w.path || g.Status != w.status ||
			g.Added != w.added || g.Removed != w.removed || g.State != w.state || !g.Kept || g.Session != sess {
			t.Errorf("change %d = %+v, want %+v", i+1, g, w)
		}
		if e, ok := calls[w.call]; !ok || g.Entry != e {
			t.Errorf("change %d (%s) is put down to entry %q; the assistant entry of call %s is %q", i+1, w.path, g.Entry, w.call, e)
		}
	}
}

// states is each listed change's state in order.
func states(list []checkpoints.Change) string {
	s := make([]string, len(list))
	for i, c := range list {
		s[i] = c.State
	}
	return strings.Join(s, ",")
}

// fileEntry is a line of a session file, as far as these tests read it.
type fileEntry struct {
	Type             string  `json:"type"`
	ID               string  `json:"id"`
	ParentID         *string `json:"parentId"`
	FirstKeptEntryID string  `json:"firstKeptEntryId"`
	Message          struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// text is a user message's text.
func (e fileEntry) text() string {
	var s string
	if json.Unmarshal(e.Message.Content, &s) == nil {
		return s
	}
	var parts []struct{ Type, Text string }
	json.Unmarshal(e.Message.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// readEntries reads a session file's entries in file order (its header
// left out).
func readEntries(t *testing.T, path string) []fileEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []fileEntry
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e fileEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %d of %s is not JSON: %q", i+1, path, line)
		}
		if e.Type != "session" {
			out = append(out, e)
		}
	}
	return out
}

// userEntry is the id of the user message holding text.
func userEntry(t *testing.T, entries []fileEntry, text string) string {
	t.Helper()
	for _, e := range entries {
		if e.Type == "message" && e.Message.Role == "user" && strings.Contains(e.text(), text) {
			return e.ID
		}
	}
	t.Fatalf("the session file has no user message %q", text)
	return ""
}

// callEntries maps each tool call's id to the assistant entry making it.
func callEntries(entries []fileEntry) map[string]string {
	out := map[string]string{}
	for _, e := range entries {
		if e.Type != "message" || e.Message.Role != "assistant" {
			continue
		}
		var parts []struct{ Type, ID string }
		json.Unmarshal(e.Message.Content, &parts)
		for _, p := range parts {
			if p.Type == "toolCall" {
				out[p.ID] = e.ID
			}
		}
	}
	return out
}

// sessionPath is the file of session id as `sessions list` shows it.
func sessionPath(t *testing.T, c *cli, id string) string {
	t.Helper()
	var rows []struct{ ID, Path string }
	json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &rows)
	for _, r := range rows {
		if r.ID == id {
			return r.Path
		}
	}
	t.Fatalf("sessions list has no session %s", id)
	return ""
}

// fullAuto lets tool calls run without asking (rpc has no one to ask).
func fullAuto(t *testing.T, c *cli) {
	t.Helper()
	permissionMode(t, c, "full-auto")
}

// permissionMode stores the permission mode, as Settings does.
func permissionMode(t *testing.T, c *cli, mode string) {
	t.Helper()
	a := &app{ctx: context.Background(), env: func(k string) string { return c.env[k] }}
	h, err := a.openHost()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.SetPermissionMode(context.Background(), mode); err != nil {
		t.Fatal(err)
	}
	a.close()
}

// rpcSessionID asks a running rpc for its session.
func rpcSessionID(r *rpcSession) string {
	r.t.Helper()
	r.send(`{"id":"st","type":"get_state"}`)
	st := r.until(func(m map[string]any) bool { return m["id"] == "st" })
	data, _ := st[len(st)-1]["data"].(map[string]any)
	id, _ := data["sessionId"].(string)
	if id == "" {
		r.t.Fatalf("get_state names no session: %v", st[len(st)-1])
	}
	return id
}

// finish closes the rpc's input and waits for it to exit.
func (r *rpcSession) finish() {
	r.t.Helper()
	r.in.Close()
	for r.lines.Scan() {
	}
	if code := <-r.done; code != 0 {
		r.t.Fatalf("rpc exited %d", code)
	}
}

// compactOK compacts the session over rpc and fails the test if the
// compaction said it failed.
func compactOK(t *testing.T, r *rpcSession) {
	t.Helper()
	r.send(`{"id":"k","type":"compact"}`)
	end := r.until(func(m map[string]any) bool { return m["type"] == "compaction_end" })
	if e := end[len(end)-1]; e["error"] != nil && e["error"] != "" {
		t.Fatalf("compaction failed: %v", e)
	}
}

// promptOK checks that a prompt's turn ended without an error and that
// every tool call it made succeeded.
func promptOK(t *testing.T, evs []map[string]any) {
	t.Helper()
	for _, e := range typed(evs, "tool_execution_end") {
		if e["isError"] == true {
			t.Errorf("a tool call failed: %v", e)
		}
	}
	if end := typed(evs, "agent_end"); len(end) != 1 || end[0]["error"] != nil && end[0]["error"] != "" {
		t.Fatalf("agent_end = %v", end)
	}
}

// One turn with write, edit and a bash command that changes two files and
// deletes a third: each file is listed with its status, line counts, the
// tool and the assistant entry that made it; rewinding to the user's
// message brings every file back byte for byte (and the folder the write
// made goes), and a redo puts the turn's work back.
func TestCheckpointsOfATurnRewoundAndRedone(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_, root := modelRig(t, c, stepsScript(map[string][][]fakemodel.Call{
		"tidy": {
			{call("w1", "write", "path", "docs/guide.md", "content", "# Guide\n\nRead me first.\n")},
			{call("e1", "edit", "path", "packages/api/handler.go", "oldText", "func Handle() {}", "newText", "func Handle() error {\n\treturn nil\n}")},
			{call("b1", "bash", "command", "printf 'four\\n' >> notes.md && printf 'a,1\\nb,3\\nc,3\\n' > data.csv && rm packages/api/AGENTS.md")},
		},
	}))
	writeFile(t, filepath.Join(root, "notes.md"), "one\ntwo\nthree\n")
	writeFile(t, filepath.Join(root, "data.csv"), "a,1\nb,2\nc,3\n")
	before := snapshot(t, root)

	id, path := plainSession(t, c, "tidy the project")
	after := snapshot(t, root)
	if after["docs/guide.md"] == "" || after["packages/api/AGENTS.md"] != "" || !strings.Contains(after["notes.md"], "four") {
		t.Fatalf("the turn did not do its work: %v", after)
	}
	entries := readEntries(t, path)
	user := userEntry(t, entries, "tidy the project")
	calls := callEntries(entries)
	if len(calls) != 3 || calls["w1"] == calls["e1"] || calls["e1"] == calls["b1"] {
		t.Fatalf("want three assistant entries, one a call: %v", calls)
	}
	checkChanges(t, changesOf(t, c, id), []wantChange{
		{n: 1, call: "w1", tool: "write", path: "docs/guide.md", status: "added", added: 3, state: "active"},
		{n: 2, call: "e1", tool: "edit", path: "packages/api/handler.go", status: "modified", added: 3, removed: 1, state: "active"},
		{n: 3, call: "b1", tool: "bash", path: "data.csv", status: "modified", added: 1, removed: 1, state: "active"},
		{n: 4, call: "b1", tool: "bash", path: "notes.md", status: "modified", added: 1, state: "active"},
		{n: 5, call: "b1", tool: "bash", path: "packages/api/AGENTS.md", status: "deleted", removed: 1, state: "active"},
	}, id, calls)
	text := c.ok("sessions", "changes", id)
	for _, want := range []string{": 5 changes\n", "A  docs/guide.md", "M  packages/api/handler.go", "D  packages/api/AGENTS.md",
		"write (entry " + calls["w1"] + ")", "bash (entry " + calls["b1"] + ")"} {
		if !strings.Contains(text, want) {
			t.Errorf("sessions changes lacks %q:\n%s", want, text)
		}
	}

	out := c.ok("sessions", "undo", id, "--to", user)
	if !strings.HasPrefix(out, "Undid changes 1, 2, 3, 4, 5 (from entry "+user+" on); 5 files:\n") {
		t.Errorf("undo --to said:\n%s", out)
	}
	sameFiles(t, "after the rewind", snapshot(t, root), before)
	if got := states(changesOf(t, c, id)); got != "undone,undone,undone,undone,undone" {
		t.Errorf("after the rewind the states are %s", got)
	}

	out = c.ok("sessions", "undo", id, "--to", user, "--redo")
	if !strings.HasPrefix(out, "Redid changes 1, 2, 3, 4, 5 (from entry "+user+" on); 5 files:\n") {
		t.Errorf("redo said:\n%s", out)
	}
	sameFiles(t, "after the redo", snapshot(t, root), after)
	if got := states(changesOf(t, c, id)); got != "active,active,active,active,active" {
		t.Errorf("after the redo the states are %s", got)
	}
	c.fails(1, "nothing to redo: no change from entry "+user+" on is undone", "sessions", "undo", id, "--to", user, "--redo")
}

// Two turns change files, a compaction summarises the first away, a third
// turn changes more: rewinding to the first message still finds it in the
// session file and undoes the files of all three turns, and the
// conversation (every entry, the compaction too) is left as it was.
func TestRewindAcrossACompaction(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_, root := modelRig(t, c, stepsScript(map[string][][]fakemodel.Call{
		"first": {{call("t1w", "write", "path", "one.txt", "content", "one\n")}},
		"second": {
			{call("t2e", "edit", "path", "one.txt", "oldText", "one", "newText", "one\ntwo")},
			{call("t2b", "bash", "command", "printf 'Root rule: keep functions short and named.\\n' > AGENTS.md")},
		},
		"third": {{call("t3b", "bash", "command", "mkdir -p out && printf 'three\\n' > out/three.txt && rm packages/api/handler.go")}},
	}))
	before := snapshot(t, root)
	fullAuto(t, c)
	r := startRPC(t, c, "--project", "mono")
	promptOK(t, r.prompt("first turn"))
	promptOK(t, r.prompt("second turn"))
	compactOK(t, r)
	promptOK(t, r.prompt("third turn"))
	id := rpcSessionID(r)
	r.finish()

	path := sessionPath(t, c, id)
	entries := readEntries(t, path)
	first, second := userEntry(t, entries, "first turn"), userEntry(t, entries, "second turn")
	userEntry(t, entries, "third turn")
	compacted := -1
	for i, e := range entries {
		if e.Type == "compaction" {
			compacted = i
			if e.FirstKeptEntryID != second {
				t.Errorf("the compaction keeps from %s, want the second message %s", e.FirstKeptEntryID, second)
			}
		}
	}
	if compacted < 0 {
		t.Fatal("the session file holds no compaction")
	}
	calls := callEntries(entries)
	checkChanges(t, changesOf(t, c, id), []wantChange{
		{n: 1, call: "t1w", tool: "write", path: "one.txt", status: "added", added: 1, state: "active"},
		{n: 2, call: "t2e", tool: "edit", path: "one.txt", status: "modified", added: 1, state: "active"},
		{n: 3, call: "t2b", tool: "bash", path: "AGENTS.md", status: "modified", added: 1, removed: 1, state: "active"},
		{n: 4, call: "t3b", tool: "bash", path: "out/three.txt", status: "added", added: 1, state: "active"},
		{n: 5, call: "t3b", tool: "bash", path: "packages/api/handler.go", status: "deleted", removed: 3, state: "active"},
	}, id, calls)
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	out := c.ok("sessions", "undo", id, "--to", first)
	if !strings.HasPrefix(out, "Undid changes 1, 2, 3, 4, 5 (from entry "+first+" on); 4 files:\n") {
		t.Errorf("undo --to the first message said:\n%s", out)
	}
	sameFiles(t, "after rewinding across the compaction", snapshot(t, root), before)
	if again, _ := os.ReadFile(path); string(again) != string(file) {
		t.Errorf("the rewind changed the session file:\n%s\nwas\n%s", again, file)
	}
}

// Turn 1 changes a file; the session branches back to before it and turn
// 2, on the new branch, changes another. Both stay in the session file,
// in time order: rewinding to turn 2's message undoes only turn 2's
// change, rewinding to turn 1's undoes both.
func TestRewindAcrossATreeBranch(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_, root := modelRig(t, c, stepsScript(map[string][][]fakemodel.Call{
		"alpha": {{call("a1", "write", "path", "alpha.txt", "content", "alpha\n")}},
		"beta":  {{call("b1", "bash", "command", "printf 'func Other() {}\\n' >> packages/api/handler.go")}},
	}))
	before := snapshot(t, root)
	fullAuto(t, c)
	r := startRPC(t, c, "--project", "mono")
	promptOK(t, r.prompt("alpha turn"))
	r.send(`{"id":"br","type":"branch","entryId":""}`)
	if br := r.until(func(m map[string]any) bool { return m["id"] == "br" }); br[len(br)-1]["success"] != true {
		t.Fatalf("branch = %v", br[len(br)-1])
	}
	promptOK(t, r.prompt("beta turn"))
	id := rpcSessionID(r)
	r.finish()

	entries := readEntries(t, sessionPath(t, c, id))
	alpha, beta := userEntry(t, entries, "alpha turn"), userEntry(t, entries, "beta turn")
	for _, e := range entries {
		if e.ID == beta && e.ParentID != nil {
			t.Errorf("turn 2 is not on a branch of its own: its message's parent is %s", *e.ParentID)
		}
	}
	calls := callEntries(entries)
	checkChanges(t, changesOf(t, c, id), []wantChange{
		{n: 1, call: "a1", tool: "write", path: "alpha.txt", status: "added", added: 1, state: "active"},
		{n: 2, call: "b1", tool: "bash", path: "packages/api/handler.go", status: "modified", added: 1, state: "active"},
	}, id, calls)
	after := snapshot(t, root)

	if out := c.ok("sessions", "undo", id, "--to", beta); out != "Undid change 2 (from entry "+beta+" on); 1 file:\n  packages/api/handler.go\n" {
		t.Errorf("undo --to turn 2 said:\n%s", out)
	}
	want := maps.Clone(after)
	want["packages/api/handler.go"] = before["packages/api/handler.go"]
	sameFiles(t, "after rewinding turn 2", snapshot(t, root), want)
	if got := states(changesOf(t, c, id)); got != "active,undone" {
		t.Errorf("after rewinding turn 2 the states are %s", got)
	}

	c.ok("sessions", "undo", id, "--to", beta, "--redo")
	sameFiles(t, "after the redo", snapshot(t, root), after)
	if out := c.ok("sessions", "undo", id, "--to", alpha); !strings.HasPrefix(out, "Undid changes 1, 2 (from entry "+alpha+" on); 2 files:\n") {
		t.Errorf("undo --to turn 1 said:\n%s", out)
	}
	sameFiles(t, "after rewinding turn 1", snapshot(t, root), before)
}

// gitState is what pi-tui must leave alone in a repository: its objects,
// its refs and its index (bytes and stat).
func gitState(t *testing.T, root string) string {
	t.Helper()
	idx, err := os.Stat(filepath.Join(root, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, ".git", "index"))
	var files []string
	filepath.WalkDir(filepath.Join(root, ".git"), func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(root, p)
			files = append(files, rel)
		}
		return nil
	})
	return fmt.Sprintf("objects:\n%s\nrefs:\n%s\nindex: %d bytes, %x, modified %v\nfiles:\n%s",
		worktreetest.Git(t, root, "count-objects", "-v"), worktreetest.Git(t, root, "for-each-ref"),
		idx.Size(), data, idx.ModTime(), strings.Join(files, "\n"))
}

// In a git repository the agent's bash command changes a tracked file and
// writes files .gitignore ignores: only the tracked change is listed (and
// undone), the ignored files are left where they are, and the user's
// repository gains no object, ref or index change from pi-tui.
func TestCheckpointsInAGitRepository(t *testing.T) {
	t.Parallel()
	c, root := worktreeCLI(t, stepsScript(map[string][][]fakemodel.Call{
		"greet": {{call("g1", "bash", "command", "printf 'hello, world\\n' > greet.txt && printf 'trace\\n' > debug.log && mkdir -p build && printf 'bin\\n' > build/app")}},
	}))
	writeFile(t, filepath.Join(root, ".gitignore"), "*.log\nbuild/\n")
	worktreetest.Git(t, root, "add", ".gitignore")
	worktreetest.Git(t, root, "commit", "-q", "-m", "ignore logs and builds")
	repo := gitState(t, root)

	id, path := plainSession(t, c, "greet the world")
	calls := callEntries(readEntries(t, path))
	checkChanges(t, changesOf(t, c, id), []wantChange{
		{n: 1, call: "g1", tool: "bash", path: "greet.txt", status: "modified", added: 1, removed: 1, state: "active"},
	}, id, calls)
	if got := gitState(t, root); got != repo {
		t.Errorf("the turn changed the repository:\n%s\nwas\n%s", got, repo)
	}

	c.ok("sessions", "undo", id, "--change", "1")
	if data, _ := os.ReadFile(filepath.Join(root, "greet.txt")); string(data) != "hello\n" {
		t.Errorf("greet.txt after the undo = %q", data)
	}
	for _, p := range []string{"debug.log", "build/app"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("the ignored %s is gone: %v", p, err)
		}
	}
	if got := gitState(t, root); got != repo {
		t.Errorf("the undo changed the repository:\n%s\nwas\n%s", got, repo)
	}
	if st := worktreetest.Git(t, root, "status", "--porcelain"); st != "" {
		t.Errorf("after the undo git status is not clean:\n%s", st)
	}
}

// A worktree session's changes are recorded in its worktree: the list
// names the worktree's file, undo restores it there, and the main
// checkout is never touched.
func TestCheckpointsOfAWorktreeSession(t *testing.T) {
	t.Parallel()
	c, root := worktreeCLI(t, writeWhatIsAsked)
	main := snapshot(t, root)
	id, _, wt := promptInWorktree(t, c, "hello from the worktree")
	entries := readEntries(t, sessionPath(t, c, id))
	checkChanges(t, changesOf(t, c, id), []wantChange{
		{n: 1, call: "w0", tool: "write", path: "greet.txt", status: "modified", added: 1, removed: 1, state: "active"},
	}, id, callEntries(entries))

	c.ok("sessions", "undo", id, "--to", userEntry(t, entries, "hello from the worktree"))
	if data, _ := os.ReadFile(filepath.Join(wt, "greet.txt")); string(data) != "hello\n" {
		t.Errorf("the worktree's greet.txt after the undo = %q", data)
	}
	sameFiles(t, "the main checkout", snapshot(t, root), main)
	if st := worktreetest.Git(t, wt, "status", "--porcelain"); st != "" {
		t.Errorf("after the undo the worktree is not clean:\n%s", st)
	}
}

// A fork (as /fork makes one) shows the changes its parent made up to
// the fork, marked parent, and cannot undo them; its own changes are its
// own to undo, and the parent's list is as it was.
func TestCheckpointsOfAForkedSession(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_, root := modelRig(t, c, stepsScript(map[string][][]fakemodel.Call{
		"one":   {{call("p1", "write", "path", "one.txt", "content", "one\n")}},
		"two":   {{call("p2", "write", "path", "two.txt", "content", "two\n")}},
		"three": {{call("f1", "write", "path", "three.txt", "content", "three\n")}},
	}))
	parent, path := plainSession(t, c, "write one")
	c.ok("prompt", "--project", "mono", "--session", parent, "--yes", "write two")
	entries := readEntries(t, path)
	two := userEntry(t, entries, "write two")
	var upTo string // the last entry before "write two"
	for i, e := range entries {
		if e.ID == two {
			upTo = entries[i-1].ID
		}
	}

	a := &app{ctx: context.Background(), env: func(k string) string { return c.env[k] }}
	h, err := a.openHost()
	if err != nil {
		t.Fatal(err)
	}
	f, err := h.Runtimes.Sessions().Fork(context.Background(), parent, upTo)
	if err != nil {
		t.Fatal(err)
	}
	fork := f.ID()
	f.Close()
	a.close()

	parentCalls := callEntries(entries)
	checkChanges(t, changesOf(t, c, fork), []wantChange{
		{n: 1, call: "p1", tool: "write", path: "one.txt", status: "added", added: 1, state: "parent", fromSess: parent},
	}, fork, parentCalls)
	one := userEntry(t, entries, "write one")
	c.fails(1, "nothing to undo: no change from entry "+one+" on is active", "sessions", "undo", fork, "--to", one)
	c.fails(1, "a forked session cannot undo its parent's changes", "sessions", "undo", fork, "--change", "1")
	if _, err := os.Stat(filepath.Join(root, "one.txt")); err != nil {
		t.Errorf("the fork undid its parent's change: %v", err)
	}

	c.ok("prompt", "--project", "mono", "--session", fork, "--yes", "write three")
	forkEntries := readEntries(t, sessionPath(t, c, fork))
	list := changesOf(t, c, fork)
	checkChanges(t, list, []wantChange{
		{n: 1, call: "p1", tool: "write", path: "one.txt", status: "added", added: 1, state: "parent", fromSess: parent},
		{n: 1, call: "f1", tool: "write", path: "three.txt", status: "added", added: 1, state: "active"},
	}, fork, callEntries(forkEntries))
	if out := c.ok("sessions", "undo", fork, "--to", one); out != "Undid change 1 (from entry "+one+" on); 1 file:\n  three.txt\n" {
		t.Errorf("the fork's rewind said %q", out)
	}
	for p, want := range map[string]bool{"one.txt": true, "two.txt": true, "three.txt": false} {
		if _, err := os.Stat(filepath.Join(root, p)); (err == nil) != want {
			t.Errorf("after the fork's rewind, %s there: %v, want %v", p, err == nil, want)
		}
	}
	if got := states(changesOf(t, c, parent)); got != "active,active" {
		t.Errorf("the parent's changes after the fork's rewind: %s", got)
	}
}
