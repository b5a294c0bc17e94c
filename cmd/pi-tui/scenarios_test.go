package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/realpi"
	"github.com/pi-tui/pi-tui/ui/common"
)

// The scenario table: what a user sees of the agent, written once and
// run on both engines with the same assertions: pi-tui's built-in engine,
// and the real pi 1.6 (PI_TUI_PI; .ci/run installs it, and without it the
// pi rows skip with the reason). Both talk to one fake OpenAI-compatible
// model server through the agent dir's models.json, as a user's pi talks to
// their provider, so each row can also check what the model was sent.
//
// A fake pi stays only for what only a fake can do: dying, garbage and
// silence (engines_test.go, core/piengine). Every other user-visible
// behaviour of the pi engine is a row here, where the real pi decides.

// sceneEngines are the engines every scenario runs on.
var sceneEngines = []string{"builtin", "pi"}

// scene is one scenario on one engine: a CLI with its own home and data
// dir, the project "mono" (root AGENTS.md, packages/api with its own
// AGENTS.md and handler.go) and the fake model playing the row's script.
type scene struct {
	t      *testing.T
	c      *cli
	engine string
	fake   *fakemodel.Server
	root   string
}

// eachEngine runs f once per engine, in subtests named for it, on a
// project trusted or not.
func eachEngine(t *testing.T, trusted bool, script fakemodel.Script, f func(t *testing.T, s *scene)) {
	for _, eng := range sceneEngines {
		t.Run(eng, func(t *testing.T) {
			f(t, newScene(t, eng, trusted, script))
		})
	}
}

func newScene(t *testing.T, engine string, trusted bool, script fakemodel.Script) *scene {
	t.Helper()
	var c *cli
	if engine == "pi" {
		c = realPiCLI(t)
	} else {
		c = newCLI(t)
	}
	fake, root := realPiProject(t, c, trusted, script)
	return &scene{t: t, c: c, engine: engine, fake: fake, root: root}
}

// prompt runs one headless `prompt --json` on the scene's engine and
// returns its exit status, events and stderr.
func (s *scene) prompt(extra ...string) (int, []map[string]any, string) {
	s.t.Helper()
	args := append([]string{"prompt", "--project", "mono", "--engine", s.engine, "--json"}, extra...)
	code, out, errs := s.c.run("", args...)
	return code, jsonLines(s.t, out), errs
}

// rpc starts `pi-tui rpc` on the scene's engine.
func (s *scene) rpc(extra ...string) *rpcSession {
	s.t.Helper()
	return startRPC(s.t, s.c, append([]string{"--project", "mono", "--engine", s.engine}, extra...)...)
}

// launched checks that evs launched one runtime on the scene's engine
// (pi's a 1.x).
func (s *scene) launched(evs []map[string]any) {
	s.t.Helper()
	l := typed(evs, "runtime_launched")
	if len(l) != 1 || l[0]["engine"] != s.engine {
		s.t.Errorf("runtime_launched = %v, want one on %s", l, s.engine)
		return
	}
	if s.engine == "pi" && !strings.HasPrefix(fmt.Sprint(l[0]["engineVersion"]), "1.") {
		s.t.Errorf("runtime_launched = %v, want pi 1.x", l)
	}
}

// sessionFiles lists the session files under the agent dir's sessions
// folder (pi's, where both engines write).
func (s *scene) sessionFiles() []string {
	s.t.Helper()
	var files []string
	filepath.WalkDir(filepath.Join(s.c.env["HOME"], ".pi", "agent", "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// editFor is an edit call in the shape the request's edit tool declares:
// pi 1.6's edits[] or the single oldText/newText, as a model reads the
// schema it is given.
func editFor(req fakemodel.Request, id, path, oldText, newText string) fakemodel.Call {
	if toolTakes(req, "edit", "edits") {
		return fakemodel.Call{ID: id, Name: "edit", Args: map[string]any{"path": path,
			"edits": []map[string]string{{"oldText": oldText, "newText": newText}}}}
	}
	return call(id, "edit", "path", path, "oldText", oldText, "newText", newText)
}

// toolTakes reports whether the request offers tool with param among its
// parameters (OpenAI's wire form).
func toolTakes(req fakemodel.Request, tool, param string) bool {
	tools, _ := req.Body["tools"].([]any)
	for _, x := range tools {
		m, _ := x.(map[string]any)
		f, _ := m["function"].(map[string]any)
		if f["name"] != tool {
			continue
		}
		p, _ := f["parameters"].(map[string]any)
		props, _ := p["properties"].(map[string]any)
		_, ok := props[param]
		return ok
	}
	return false
}

// A prompt: the answer printed, the runtime launched on the engine, the
// root chain once in the system prompt with the memory frame, and nested
// instructions kept out of it.
func TestScenarioPrompt(t *testing.T) {
	eachEngine(t, true, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "Finished."} }, func(t *testing.T, s *scene) {
		memFile := filepath.Join(t.TempDir(), "mem.txt")
		writeFile(t, memFile, "The staging server is called hermes.")
		s.c.ok("memory", "set", "mono", "--file", memFile)

		code, out, errs := s.c.run("", "prompt", "--project", "mono", "--engine", s.engine, "say hi")
		if code != 0 || out != "Finished.\n" {
			t.Fatalf("prompt = %d %q %q", code, out, errs)
		}
		code, evs, errs := s.prompt("say hi again")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		s.launched(evs)
		promptOK(t, evs)
		reqs := s.fake.Requests()
		sys := reqs[len(reqs)-1].System
		if n := strings.Count(sys, "Root rule: keep functions short."); n != 1 {
			t.Errorf("the root chain is in the system prompt %d times:\n%s", n, sys)
		}
		if !strings.Contains(sys, "<project-memory") || !strings.Contains(sys, "hermes") {
			t.Errorf("no memory frame in the system prompt:\n%s", sys)
		}
		if strings.Contains(sys, "API rule") {
			t.Errorf("a nested AGENTS.md reached the system prompt:\n%s", sys)
		}
	})
}

// A write is denied headless without --yes (exit 3, one stderr line
// naming write and --yes, no file, the model told) and done with --yes.
func TestScenarioWriteDeniedHeadlessDoneWithYes(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		code, evs, errs := s.prompt("write notes.txt")
		if code != exitDenied || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "write") || !strings.Contains(errs, "--yes") {
			t.Fatalf("without --yes: exit %d, stderr %q; want 3 and one line naming write and --yes", code, errs)
		}
		s.launched(evs)
		if _, err := os.Stat(filepath.Join(s.root, "notes.txt")); err == nil {
			t.Error("the denied write wrote")
		}
		if res := lastResult(s.fake); !strings.Contains(res, "needs approval") || !strings.Contains(res, "without --yes") {
			t.Errorf("the model was not told of the denial: %q", res)
		}

		code, evs, errs = s.prompt("--yes", "write notes.txt")
		if code != 0 {
			t.Fatalf("with --yes: exit %d: %s", code, errs)
		}
		if ends := typed(evs, "tool_execution_end"); len(ends) != 1 || ends[0]["isError"] == true {
			t.Errorf("with --yes the write ended %v", ends)
		}
		types := wireTypes(evs)
		for _, k := range []string{"runtime_launched", "agent_start", "message_update", "tool_execution_start", "tool_execution_end", "agent_end", "runtime_retired"} {
			if !types[k] {
				t.Errorf("no %s in prompt --json", k)
			}
		}
		if b, err := os.ReadFile(filepath.Join(s.root, "notes.txt")); err != nil || string(b) != "noted" {
			t.Errorf("the approved write left %q, %v", b, err)
		}
	})
}

// A read of ../outside/secret.txt is refused before anything reads it:
// the model's next request carries pi-tui's sentence, never the secret.
func TestScenarioReadOutsideTheRootRefused(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		writeFile(t, filepath.Join(filepath.Dir(s.root), "outside", "secret.txt"), "SECRET-OUTSIDE")
		code, evs, errs := s.prompt("read ../outside/secret.txt")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if ends := typed(evs, "tool_execution_end"); len(ends) != 1 || ends[0]["isError"] != true {
			t.Errorf("the outside read ended %v, want an error", ends)
		}
		res := lastResult(s.fake)
		if !strings.Contains(res, "is outside the project root") || !strings.Contains(res, "paths and links may not leave it") {
			t.Errorf("the model was not sent pi-tui's refusal: %q", res)
		}
		for _, req := range s.fake.Requests() {
			if strings.Contains(req.Raw, "SECRET-OUTSIDE") {
				t.Fatal("the file outside the root reached the model")
			}
		}
	})
}

// Nested instructions over one rpc: a read under packages/api delivers its
// AGENTS.md once on the branch, in the tool result the model is sent
// next; the same read again delivers nothing; a branch that never saw the
// delivery gets it again.
func TestScenarioNestedDeliveryOncePerBranch(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		r := s.rpc()
		evs := r.prompt("read packages/api/handler.go")
		s.launched(evs)
		if d := deliveries(evs); len(d) != 1 || deliveredLabels(d[0]) != "packages/api/AGENTS.md:block" {
			t.Fatalf("first read delivered %v", d)
		}
		res := lastResult(s.fake)
		if strings.Count(res, "API rule: wrap errors.") != 1 || !strings.Contains(res, "func Handle()") || strings.Contains(res, "Root rule") {
			t.Errorf("the first read's result does not carry packages/api/AGENTS.md once (and not the root's):\n%s", res)
		}

		if d := deliveries(r.prompt("read packages/api/handler.go")); len(d) != 1 || d[0] != nil {
			t.Errorf("the second read on the branch delivered %v", d)
		}
		if res := lastResult(s.fake); strings.Contains(res, "API rule") || strings.Contains(res, "<instructions>") {
			t.Errorf("the second read on the branch carries a block again:\n%s", res)
		}

		r.send(`{"id":"br","type":"branch","entryId":""}`)
		if got := r.until(func(m map[string]any) bool { return m["id"] == "br" }); got[len(got)-1]["success"] != true {
			t.Fatalf("branch = %v", got[len(got)-1])
		}
		evs = r.prompt("read packages/api/handler.go")
		if s.engine == "pi" {
			// pi holds one branch in memory: it ends, and a new one starts
			// on the moved leaf.
			s.launched(evs)
		}
		if d := deliveries(evs); len(d) != 1 || deliveredLabels(d[0]) != "packages/api/AGENTS.md:block" {
			t.Errorf("the read on the new branch delivered %v", d)
		}
		if res := lastResult(s.fake); strings.Count(res, "API rule: wrap errors.") != 1 {
			t.Errorf("the new branch's read does not carry the file once:\n%s", res)
		}
	})
}

// In an untrusted project a read's result carries the "untrusted" block
// naming the nested file, never its text; the root chain still loads.
func TestScenarioUntrustedProjectGetsTheNoticeOnly(t *testing.T) {
	eachEngine(t, false, callsThenAnswer, func(t *testing.T, s *scene) {
		code, evs, errs := s.prompt("read packages/api/handler.go")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		s.launched(evs)
		if ends := typed(evs, "tool_execution_end"); len(ends) != 1 || ends[0]["isError"] == true || ends[0]["preflight"] == nil {
			t.Errorf("the read ended %v, want done with its preflight", ends)
		}
		d := deliveries(evs)
		if len(d) != 1 || d[0] == nil || d[0]["untrusted"] != true || deliveredLabels(d[0]) != "" {
			t.Fatalf("untrusted delivery = %v", d)
		}
		res := lastResult(s.fake)
		if !strings.Contains(res, "untrusted") || !strings.Contains(res, "packages/api/AGENTS.md") || strings.Contains(res, "API rule") {
			t.Errorf("the untrusted block:\n%s", res)
		}
		if sys := s.fake.Requests()[0].System; strings.Count(sys, "Root rule: keep functions short.") != 1 {
			t.Errorf("the root chain is not in the system prompt once:\n%s", sys)
		}
	})
}

// write, edit (in the shape the engine's edit declares) and a bash that
// changes one file and deletes another: every change is listed with the
// assistant entry that made it; rewinding to the user's message restores
// every file, and a redo puts the turn back.
func TestScenarioCheckpointsAndUndo(t *testing.T) {
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if !strings.Contains(req.LastUser, "notes") {
			return fakemodel.Reply{Text: "Done."}
		}
		switch answersSinceUser(req) {
		case 0:
			return fakemodel.Reply{Calls: []fakemodel.Call{call("pw1", "write", "path", "docs/notes.txt", "content", "noted\nand kept\n")}}
		case 1:
			return fakemodel.Reply{Calls: []fakemodel.Call{editFor(req, "pe1", "docs/notes.txt", "and kept", "and kept well")}}
		case 2:
			return fakemodel.Reply{Calls: []fakemodel.Call{call("pb1", "bash", "command", "printf 'func Other() {}\\n' >> packages/api/handler.go && rm AGENTS.md")}}
		}
		return fakemodel.Reply{Text: "Done."}
	}
	eachEngine(t, true, script, func(t *testing.T, s *scene) {
		before := snapshot(t, s.root)
		code, evs, errs := s.prompt("--yes", "write the notes")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		s.launched(evs)
		promptOK(t, evs)
		after := snapshot(t, s.root)
		if !strings.Contains(after["docs/notes.txt"], "and kept well") || after["AGENTS.md"] != "" {
			t.Fatalf("the calls did not do their work: %v", after)
		}

		id, path := onlySession(t, s.c)
		entries := readEntries(t, path)
		calls := callEntries(entries)
		checkChanges(t, changesOf(t, s.c, id), []wantChange{
			{n: 1, call: "pw1", tool: "write", path: "docs/notes.txt", status: "added", added: 2, state: "active"},
			{n: 2, call: "pe1", tool: "edit", path: "docs/notes.txt", status: "modified", added: 1, removed: 1, state: "active"},
			{n: 3, call: "pb1", tool: "bash", path: "AGENTS.md", status: "deleted", removed: 1, state: "active"},
			{n: 4, call: "pb1", tool: "bash", path: "packages/api/handler.go", status: "modified", added: 1, state: "active"},
		}, id, calls)

		user := userEntry(t, entries, "write the notes")
		out := s.c.ok("sessions", "undo", id, "--to", user)
		if !strings.HasPrefix(out, "Undid changes 1, 2, 3, 4 (from entry "+user+" on); 3 files:\n") {
			t.Errorf("undo --to said:\n%s", out)
		}
		sameFiles(t, "after the rewind", snapshot(t, s.root), before)
		s.c.ok("sessions", "undo", id, "--to", user, "--redo")
		sameFiles(t, "after the redo", snapshot(t, s.root), after)
	})
}

// An edit whose old text is not in the file fails with the engine's
// sentence, changes nothing and records no change.
func TestScenarioFailedEditChangesNothing(t *testing.T) {
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult == "" {
			return fakemodel.Reply{Calls: []fakemodel.Call{editFor(req, "pe1", "packages/api/handler.go", "func Serve() {}", "func Serve() error { return nil }")}}
		}
		return fakemodel.Reply{Text: "Done."}
	}
	eachEngine(t, true, script, func(t *testing.T, s *scene) {
		before := snapshot(t, s.root)
		code, evs, errs := s.prompt("--yes", "rename the handler")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if ends := typed(evs, "tool_execution_end"); len(ends) != 1 || ends[0]["isError"] != true {
			t.Errorf("the edit ended %v, want an error", ends)
		}
		if res := lastResult(s.fake); !strings.Contains(strings.ToLower(res), "not") || !strings.Contains(res, "handler.go") {
			t.Errorf("the model was not told the text was not found: %q", res)
		}
		sameFiles(t, "after the failed edit", snapshot(t, s.root), before)
		id, _ := onlySession(t, s.c)
		if list := changesOf(t, s.c, id); len(list) != 0 {
			t.Errorf("a failed edit recorded changes: %+v", list)
		}
		if out := s.c.ok("sessions", "changes", id); !strings.HasSuffix(out, ": no file changes recorded.\n") {
			t.Errorf("sessions changes after a failed edit:\n%s", out)
		}
	})
}

// Plan mode: only read-only tools are offered, a write the model tries
// anyway is refused with plan mode's sentence, and nothing is written.
func TestScenarioPlanModeWritesNothing(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		before := snapshot(t, s.root)
		code, evs, errs := s.prompt("--plan", "--yes", "write notes.txt")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		s.launched(evs)
		reqs := s.fake.Requests()
		for _, name := range offered(reqs[0]) {
			if name == "write" || name == "edit" || name == "bash" {
				t.Errorf("plan mode offered %s: %v", name, offered(reqs[0]))
			}
		}
		if ends := typed(evs, "tool_execution_end"); len(ends) != 1 || ends[0]["isError"] != true {
			t.Errorf("the write in plan mode ended %v, want refused", ends)
		}
		if res := lastResult(s.fake); !strings.Contains(strings.ToLower(res), "plan mode") {
			t.Errorf("the model was not told plan mode refuses it: %q", res)
		}
		sameFiles(t, "after a plan", snapshot(t, s.root), before)
	})
}

// Compaction over rpc: the session file gets a compaction entry, and the
// next prompt's request carries the summary instead of the early turns.
func TestScenarioCompaction(t *testing.T) {
	script := stepsScript(map[string][][]fakemodel.Call{
		"first": {{call("c1", "write", "path", "one.txt", "content", "EARLY-TURN-CONTENT\n")}},
	})
	eachEngine(t, true, script, func(t *testing.T, s *scene) {
		// Keep little, so two short turns leave something to summarise
		// (pi's default keeps the last 20,000 tokens whole).
		writeFile(t, filepath.Join(s.c.env["HOME"], ".pi", "agent", "settings.json"),
			`{"defaultProvider":"fake","defaultModel":"m1","defaultThinkingLevel":"off","compaction":{"keepRecentTokens":1}}`)
		fullAuto(t, s.c)
		r := s.rpc()
		promptOK(t, r.prompt("first turn"))
		promptOK(t, r.prompt("second turn"))
		compactOK(t, r)
		promptOK(t, r.prompt("third turn"))
		id := rpcSessionID(r)
		r.finish()

		compacted := false
		for _, e := range readEntries(t, sessionPath(t, s.c, id)) {
			compacted = compacted || e.Type == "compaction"
		}
		if !compacted {
			t.Fatal("the session file holds no compaction")
		}
		reqs := s.fake.Requests()
		last := reqs[len(reqs)-1]
		if !strings.Contains(last.Raw, "Summary: files were written and edited.") {
			t.Errorf("the prompt after the compaction does not carry the summary:\n%s", last.Raw)
		}
	})
}

// Abort over rpc: the running prompt stops at once, its turn ends marked
// aborted, and the next prompt runs.
func TestScenarioAbort(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	started := make(chan struct{}, 4)
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if strings.Contains(req.LastUser, "slow") {
			started <- struct{}{}
			return fakemodel.Reply{Text: "slow answer", Hold: hold}
		}
		return fakemodel.Reply{Text: "fast answer"}
	}
	eachEngine(t, true, script, func(t *testing.T, s *scene) {
		r := s.rpc()
		r.send(`{"id":"p","type":"prompt","message":"take it slow"}`)
		<-started
		r.send(`{"id":"a","type":"abort"}`)
		seen := r.until(func(m map[string]any) bool { return m["type"] == "agent_end" })
		var answered bool
		for _, e := range seen {
			if e["id"] == "a" {
				answered = e["success"] == true
			}
		}
		if !answered {
			t.Errorf("abort was not answered before the turn ended: %v", seen)
		}
		evs := r.prompt("now fast")
		promptOK(t, evs)
		r.finish()
		if reqs := s.fake.Requests(); !strings.Contains(reqs[len(reqs)-1].LastUser, "now fast") {
			t.Errorf("the prompt after the abort did not reach the model")
		}
	})
}

// A project with a .pi/ folder (settings, prompts): the agent starts and
// answers, trusted or not.
func TestScenarioProjectWithDotPi(t *testing.T) {
	for _, trusted := range []bool{true, false} {
		t.Run(fmt.Sprint("trusted=", trusted), func(t *testing.T) {
			eachEngine(t, trusted, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "Finished."} }, func(t *testing.T, s *scene) {
				writeFile(t, filepath.Join(s.root, ".pi", "settings.json"), `{"quietStartup":true}`)
				writeFile(t, filepath.Join(s.root, ".pi", "prompts", "review.md"), "Review the code.")
				code, out, errs := s.c.run("", "prompt", "--project", "mono", "--engine", s.engine, "say hi")
				if code != 0 || out != "Finished.\n" {
					t.Fatalf("prompt in a project with .pi/ = %d %q %q", code, out, errs)
				}
			})
		})
	}
}

// A malformed models.json is one clear error on stderr that names the
// file and where it breaks, and leaves no session file behind.
func TestScenarioBadModelsJSON(t *testing.T) {
	eachEngine(t, true, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "Finished."} }, func(t *testing.T, s *scene) {
		models := filepath.Join(s.c.env["HOME"], ".pi", "agent", "models.json")
		writeFile(t, models, "{\n  \"providers\": {\n    \"fake\": { \"baseUrl\": ,\n  }\n}\n")
		code, _, errs := s.c.run("", "prompt", "--project", "mono", "--engine", s.engine, "say hi")
		if code == 0 {
			t.Fatalf("a broken models.json prompted: %q", errs)
		}
		if !strings.Contains(errs, "models.json") || !strings.Contains(errs, "line 3") || strings.Contains(errs, `\x0a`) {
			t.Errorf("stderr %q does not name models.json with the line of the error", errs)
		}
		if files := s.sessionFiles(); len(files) != 0 {
			t.Errorf("the failed launch left session files %v", files)
		}
	})
}

// sessionsJSON is `sessions list --json`'s rows.
func sessionsJSON(t *testing.T, c *cli) []map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// git makes the scene's project a git repository (git with an identity of
// its own), for the rows about worktree sessions.
func (s *scene) git() {
	s.t.Helper()
	worktreetest.Need(s.t)
	env := worktreetest.Env(s.t)
	for _, k := range []string{"PATH", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		s.c.env[k] = env(k)
	}
	worktreetest.Repo(s.t, s.root, nil)
}

// A worktree session: the write lands in the worktree and the project's
// checkout stays clean, bash starts there, the system prompt names the
// worktree, `sessions changes` lists the write, and a merge brings it to
// the project.
func TestScenarioWorktreeSession(t *testing.T) {
	script := stepsScript(map[string][][]fakemodel.Call{
		"wt2": {{call("ww1", "write", "path", "wt2.txt", "content", "from the worktree\n")}, {call("wb1", "bash", "command", "pwd")}},
	})
	eachEngine(t, true, script, func(t *testing.T, s *scene) {
		s.git()
		code, evs, errs := s.prompt("--worktree", "--yes", "write wt2.txt")
		if code != 0 {
			t.Fatalf("prompt --worktree: exit %d: %s", code, errs)
		}
		s.launched(evs)
		promptOK(t, evs)
		m := noteSession.FindStringSubmatch(errs)
		if m == nil {
			t.Fatalf("no note of the worktree on stderr: %q", errs)
		}
		id, branch, wt := m[1], m[2], m[3]
		if got, err := os.ReadFile(filepath.Join(wt, "wt2.txt")); err != nil || string(got) != "from the worktree\n" {
			t.Errorf("the worktree's wt2.txt = %q, %v", got, err)
		}
		if _, err := os.Stat(filepath.Join(s.root, "wt2.txt")); !os.IsNotExist(err) {
			t.Errorf("the write landed in the project's checkout (%v)", err)
		}
		if st := worktreetest.Git(t, s.root, "status", "--porcelain"); st != "" {
			t.Errorf("the project's checkout is not clean after a worktree session's turn:\n%s", st)
		}
		var pwd string
		for _, e := range typed(evs, "tool_execution_end") {
			if e["toolCallId"] == "wb1" {
				pwd = strings.TrimSpace(fmt.Sprint(e["result"]))
			}
		}
		if real, _ := filepath.EvalSymlinks(wt); pwd != wt && pwd != real {
			t.Errorf("bash's pwd = %q, want the worktree %q", pwd, wt)
		}
		if sys := s.fake.Requests()[0].System; !strings.Contains(sys, wt) || strings.Contains(sys, s.root) {
			t.Errorf("the system prompt does not name the worktree %q (and only it):\n%s", wt, sys)
		}
		if list := changesOf(t, s.c, id); len(list) != 1 || list[0].Path != "wt2.txt" || list[0].ToolCallID != "ww1" {
			t.Errorf("sessions changes = %+v, want wt2.txt by ww1", list)
		}
		if out := s.c.ok("sessions", "merge", id, "--message", "Write wt2"); !strings.Contains(out, "Merged "+branch+" into main") {
			t.Errorf("merge: %s", out)
		}
		if got, _ := os.ReadFile(filepath.Join(s.root, "wt2.txt")); string(got) != "from the worktree\n" {
			t.Errorf("the project after the merge: wt2.txt = %q", got)
		}
	})
}

// otherWriter appends one turn, text, to the project's latest session
// from another process: the real pi (`pi -c -p`) on the pi engine, a
// second pi-tui (`prompt --continue`) on the built-in one.
func (s *scene) otherWriter(text string) {
	s.t.Helper()
	if s.engine != "pi" {
		s.c.ok("prompt", "--project", "mono", "--engine", s.engine, "--continue", text)
		return
	}
	cmd := exec.Command(foundPi16.path, "-c", "-p", text)
	cmd.Dir = s.root
	cmd.Env = append(os.Environ(), "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "PI_OFFLINE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("pi -c -p %q: %v\n%s", text, err, out)
	}
}

// Another writer: with a session open over rpc, another process adds a
// turn to its file; the next prompt's request carries that turn, pi-tui's
// message continues the file's one branch, and a later turn of the other
// writer sees both programs' turns.
func TestScenarioAnotherWriter(t *testing.T) {
	script := func(_ int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "answer to " + req.LastUser}
	}
	eachEngine(t, true, script, func(t *testing.T, s *scene) {
		r := s.rpc()
		s.launched(r.prompt("first question"))
		s.otherWriter("second from elsewhere")

		evs := r.prompt("third question")
		promptOK(t, evs)
		if s.engine == "pi" && (!hasReason(evs, "runtime_retired", "other-writer") || !hasReason(evs, "runtime_launched", "other-writer")) {
			// pi holds the session in memory: only a new pi reads the turn.
			t.Errorf("no retirement and launch with reason other-writer: %v %v", typed(evs, "runtime_retired"), typed(evs, "runtime_launched"))
		}
		reqs := s.fake.Requests()
		if last := reqs[len(reqs)-1].Raw; !strings.Contains(last, "second from elsewhere") || !strings.Contains(last, "answer to second from elsewhere") {
			t.Errorf("the prompt after the other writer's turn did not send that turn to the model:\n%s", last)
		}
		_, path := onlySession(t, s.c)
		oneBranch(t, path)

		s.otherWriter("fourth from elsewhere")
		reqs = s.fake.Requests()
		if last := reqs[len(reqs)-1].Raw; !strings.Contains(last, "second from elsewhere") || !strings.Contains(last, "answer to third question") {
			t.Errorf("the other writer afterwards does not see both programs' turns:\n%s", last)
		}
		oneBranch(t, path)
	})
}

// oneBranch fails the test when two entries of the session file share a
// parent: the file forked.
func oneBranch(t *testing.T, path string) {
	t.Helper()
	children := map[string]int{}
	for _, e := range readEntries(t, path) {
		var parent string
		if e.ParentID != nil {
			parent = *e.ParentID
		}
		if children[parent]++; children[parent] == 2 {
			t.Errorf("the session file forked at %q", parent)
		}
	}
}

// A user's extension in the agent dir: its tool is offered to the model
// and goes through pi-tui's gate by name (denied headless, run with
// --yes, its text sent to the model). Only pi runs extensions.
func TestScenarioExtensionTool(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		if s.engine != "pi" {
			t.Skip("pi's extensions run only in pi; the built-in engine has no extension runtime")
		}
		writeFile(t, filepath.Join(s.c.env["HOME"], ".pi", "agent", "extensions", "hello.ts"), realpi.HelloExtension)
		code, evs, errs := s.prompt("hello")
		if code != exitDenied || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "hello") {
			t.Fatalf("without --yes: exit %d, stderr %q; want 3 and one line naming hello", code, errs)
		}
		s.launched(evs)
		if reqs := s.fake.Requests(); len(reqs) == 0 || !slices.Contains(offered(reqs[0]), "hello") {
			t.Fatalf("the extension's tool is not offered to the model")
		}
		if res := lastResult(s.fake); strings.Contains(res, "HELLO-FROM-THE-USER-EXTENSION") || !strings.Contains(res, "needs approval") {
			t.Errorf("the denied hello call gave the model %q", res)
		}
		code, evs, errs = s.prompt("--yes", "hello")
		if code != 0 {
			t.Fatalf("with --yes: exit %d: %s", code, errs)
		}
		if ends := typed(evs, "tool_execution_end"); len(ends) != 1 || ends[0]["toolName"] != "hello" || ends[0]["isError"] == true {
			t.Errorf("with --yes hello ended %v", ends)
		}
		if res := lastResult(s.fake); !strings.Contains(res, "HELLO-FROM-THE-USER-EXTENSION") {
			t.Errorf("the model was not sent hello's text: %q", res)
		}
	})
}

// An unknown model. A provider nobody declares (`nope/nomodel`) is
// refused on both engines: exit 1, one line naming it, the model never
// called, no session file. An id the declared provider does not list
// (`fake/nomodel`) is where they differ: pi runs it as a custom id and
// warns in its words, said as pi's; the built-in engine refuses it with
// the models it has.
func TestScenarioUnknownModel(t *testing.T) {
	eachEngine(t, true, answer, func(t *testing.T, s *scene) {
		code, out, errs := s.c.run("", "prompt", "--project", "mono", "--engine", s.engine, "--model", "nope/nomodel", "hello")
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `provider "nope"`) {
			t.Errorf("nope/nomodel: exit %d, stdout %q, stderr %q; want 1 and one line naming the provider", code, out, errs)
		}
		if n := len(s.fake.Requests()); n != 0 {
			t.Errorf("nope/nomodel: the model server was asked %d times", n)
		}
		if files := s.sessionFiles(); len(files) != 0 {
			t.Errorf("the refused launch left session files %v", files)
		}

		code, out, errs = s.c.run("", "prompt", "--project", "mono", "--engine", s.engine, "--model", "fake/nomodel", "hello")
		if s.engine == "pi" {
			if code != 0 || out != "the answer\n" || errs != "pi-tui: warning: pi warns: Model \"nomodel\" not found for provider \"fake\". Using custom model id.\n" {
				t.Errorf("fake/nomodel on pi: exit %d, stdout %q, stderr %q; want the answer and pi's warning", code, out, errs)
			}
			if reqs := s.fake.Requests(); len(reqs) != 1 || reqs[0].Body["model"] != "nomodel" {
				t.Errorf("the model server was asked %d times (%v), want once for nomodel", len(reqs), reqs)
			}
			return
		}
		if code != 1 || errs != "pi-tui: that model cannot be used (provider \"fake\" has no model \"nomodel\"); available: fake/m1\n" {
			t.Errorf("fake/nomodel on builtin: exit %d, stdout %q, stderr %q; want refused with the list", code, out, errs)
		}
		if n := len(s.fake.Requests()); n != 0 || len(s.sessionFiles()) != 0 {
			t.Errorf("the refused fake/nomodel asked the model %d times, left files %v", n, s.sessionFiles())
		}
	})
}

// pi missing: with the pi engine chosen and PI_TUI_PI naming no file, a
// prompt fails with one clear line and leaves no session file. The
// built-in engine needs no pi.
func TestScenarioPiMissing(t *testing.T) {
	eachEngine(t, true, answer, func(t *testing.T, s *scene) {
		if s.engine != "pi" {
			t.Skip("the built-in engine runs no pi, so a missing pi changes nothing there")
		}
		s.c.env["PI_TUI_PI"] = filepath.Join(t.TempDir(), "no-such-pi")
		code, out, errs := s.c.run("", "prompt", "--project", "mono", "--engine", s.engine, "hello")
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "no-such-pi: no such file") || !strings.Contains(errs, "--engine builtin") {
			t.Errorf("exit %d, stdout %q, stderr %q; want 1 and one line naming the missing file and the way out", code, out, errs)
		}
		if n := len(s.fake.Requests()); n != 0 {
			t.Errorf("the model was called %d times", n)
		}
		if files := s.sessionFiles(); len(files) != 0 {
			t.Errorf("the failed launch left session files %v", files)
		}
	})
}

// writeEach: a prompt "write PATH" makes the model write PATH once; after
// the result it answers with what the tool said.
func writeEach(n int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult != "" {
		return fakemodel.Reply{Text: "tool said: " + req.LastToolResult}
	}
	if path, ok := strings.CutPrefix(req.LastUser, "write "); ok {
		return fakemodel.Reply{Calls: []fakemodel.Call{call(fmt.Sprintf("w%d", n), "write", "path", path, "content", "noted\n")}}
	}
	return fakemodel.Reply{Text: "done"}
}

// Approvals in the terminal UI: y writes the file; r with a reason denies
// it, writes nothing, and the model's next request carries the reason; A
// keeps a rule (a path glob the user widens) under which the next write
// asks nothing, in the UI and headless without --yes.
func TestScenarioApprovals(t *testing.T) {
	eachEngine(t, true, writeEach, func(t *testing.T, s *scene) {
		u := s.ui()
		u.newSession()

		u.say("write a.txt")
		u.WaitFor("Allow write?")
		u.settle()
		u.Keys("y")
		u.WaitFor("tool said: ")
		if b, err := os.ReadFile(filepath.Join(s.root, "a.txt")); err != nil || string(b) != "noted\n" {
			t.Errorf("the approved write left %q, %v", b, err)
		}

		denied := u.Raw.Len()
		u.say("write b.txt")
		u.WaitFor("Allow write?")
		u.settle()
		u.Keys("r")
		u.WaitFor("Deny write: why?")
		u.TM.Type("keep the folder tidy")
		u.Keys("enter")
		u.WaitFor("✗ write b.txt · denied:")
		// The model's answer to the denial: its request has arrived.
		u.WaitFrom(denied, "tool said: The user denied")
		if _, err := os.Stat(filepath.Join(s.root, "b.txt")); err == nil {
			t.Error("the denied write wrote")
		}
		if res := lastResult(s.fake); !strings.Contains(res, "keep the folder tidy") {
			t.Errorf("the model was not sent the reason: %q", res)
		}

		u.say("write docs/c.md")
		u.WaitFor("Allow write?")
		u.settle()
		u.Keys("A")
		u.WaitFor("Always allow write in mono", "> docs/c.md")
		u.Keys("ctrl+u")
		u.TM.Type("docs/*.md")
		u.Keys("enter")
		u.WaitFor("always allowed in this project: docs/*.md")
		start := u.Raw.Len()
		u.say("write docs/d.md")
		u.WaitFrom(start, "✓ write docs/d.md")
		if strings.Contains(u.Raw.String()[start:], "Allow write?") {
			t.Error("a write the rule covers asked again")
		}
		code, evs, errs := s.prompt("write docs/e.md")
		if code != 0 {
			t.Errorf("headless, the rule did not cover docs/e.md: exit %d: %s", code, errs)
		}
		promptOK(t, evs)
		for _, f := range []string{"docs/c.md", "docs/d.md", "docs/e.md"} {
			if _, err := os.Stat(filepath.Join(s.root, f)); err != nil {
				t.Errorf("%s was not written: %v", f, err)
			}
		}
	})
}

// /context says what the model is sent: after a prompt, the system
// prompt's size is the size of the one the model server received, and v
// shows that prompt. On pi the tools line names exactly the tools the
// request declared, in its order (the built-in engine's prompt describes
// its tools itself, so its size covers them).
func TestScenarioContextIsWhatWasSent(t *testing.T) {
	eachEngine(t, true, answer, func(t *testing.T, s *scene) {
		u := s.ui()
		u.newSession()
		u.say("hello")
		u.WaitFor("the answer")
		reqs := s.fake.Requests()
		sent := reqs[len(reqs)-1]
		tools := offered(sent)
		if len(tools) == 0 {
			t.Fatal("the request declared no tools")
		}
		want := []string{fmt.Sprintf("System prompt for fake/m1: %s bytes", common.Group(len(sent.System)))}
		if s.engine == "pi" {
			want = append(want, fmt.Sprintf("Tools (%d, ", len(tools)), "): "+strings.Join(tools, ", "))
		}
		u.command("/context", want...)
		u.Keys("v")
		first, _, _ := strings.Cut(sent.System, "\n")
		u.WaitFor(first)
	})
}

// /tree and /fork in the terminal UI: continuing from before the second
// message puts a third on a new branch (the file forks there, and the
// model is sent the first exchange and the third message, not the
// second); /fork from the first answer makes a new session holding only
// the first exchange, the old one unchanged.
func TestScenarioTreeAndFork(t *testing.T) {
	script := func(_ int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "answer to " + req.LastUser}
	}
	eachEngine(t, true, script, func(t *testing.T, s *scene) {
		u := s.ui()
		u.newSession()
		u.say("one")
		u.WaitFor("answer to one")
		u.say("two")
		u.WaitFor("answer to two")
		u.command("/tree", "Tree · every branch")
		u.Keys("up") // from the leaf (answer to two) to "two"
		u.Keys("enter")
		u.WaitFor("branched")
		u.Keys("backspace", "backspace", "backspace") // the restored "two"
		u.TM.Type("three")
		u.Keys("enter")
		u.WaitFor("answer to three")
		reqs := s.fake.Requests()
		if last := reqs[len(reqs)-1].Raw; !strings.Contains(last, "answer to one") || strings.Contains(last, "answer to two") {
			t.Errorf("the prompt on the new branch was not sent the first exchange alone:\n%s", last)
		}
		u.command("/tree", "Tree · every branch", "you: two", "you: three", "┬")
		u.Keys("esc")

		u.command("/fork", "Fork · a new session from which entry?")
		// Found by its words: which rows a file shows above it is the
		// engine's (the rows above it differ between them).
		u.Keys("/")
		u.WaitScreen("type words to narrow")
		u.TM.Type("answer to one")
		u.WaitScreen("1 of 1 matching")
		u.Keys("enter")
		u.WaitFor("forked: a new session")
		rows := sessionsJSON(t, s.c)
		if len(rows) != 2 {
			t.Fatalf("sessions list = %v, want the session and its fork", rows)
		}
		for _, row := range rows {
			var users []string
			for _, e := range readEntries(t, fmt.Sprint(row["path"])) {
				if e.Type == "message" && e.Message.Role == "user" {
					users = append(users, string(e.Message.Content))
				}
			}
			if n := len(users); n != 1 && n != 3 {
				t.Errorf("%s holds %d user messages (%v), want 1 (the fork) or 3 (the session, unchanged)", row["path"], n, users)
			}
		}
	})
}

// An extension's dialog in the terminal UI: a user extension's tool asks
// with ctx.ui.confirm; after pi-tui's approval of the tool the question
// opens in the chat, and y answers it, which the model reads next. Only
// pi runs extensions.
func TestScenarioExtensionDialog(t *testing.T) {
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult == "" {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "d1", Name: "deploy", Args: map[string]string{}}}}
		}
		return fakemodel.Reply{Text: "the tool said " + req.LastToolResult}
	}
	eachEngine(t, true, script, func(t *testing.T, s *scene) {
		if s.engine != "pi" {
			t.Skip("pi's extensions run only in pi; the built-in engine has no extension runtime")
		}
		writeFile(t, filepath.Join(s.c.env["HOME"], ".pi", "agent", "extensions", "confirm.ts"), realpi.ConfirmExtension)
		u := s.ui()
		u.newSession()
		u.say("deploy it")
		u.WaitFor("Allow deploy?")
		u.settle()
		u.Keys("y")
		u.WaitFor(`Deploy?\x1b]0;pwned\x07`, "y yes", "esc cancel")
		u.settle()
		u.Keys("y")
		u.WaitFor("the tool said deployed")
		if res := lastResult(s.fake); !strings.Contains(res, "deployed") {
			t.Errorf("the model read %q, want the extension's answer", res)
		}
	})
}
