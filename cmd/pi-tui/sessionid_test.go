package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// sharedPrefix is three projects, proj1 to proj3 (git repositories whose
// greet.txt says "hello"), each with a session whose id starts with the
// same 8 digits, as UUIDv7 ids of sessions begun within a minute do.
// proj3's works in a worktree of its own; proj1's and proj2's wrote
// greet.txt ("from proj1", "from proj2"), each a change that can be
// undone.
type sharedPrefix struct {
	c      *cli
	prefix string            // the 8 digits
	ids    map[string]string // project name → session id
	roots  map[string]string // project name → root
	wt3    string            // proj3's session's worktree
}

func newSharedPrefix(t *testing.T) *sharedPrefix {
	t.Helper()
	worktreetest.Need(t)
	c := newCLI(t)
	env := worktreetest.Env(t)
	for _, k := range []string{"PATH", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		c.env[k] = env(k)
	}
	fake := fakemodel.New(t, writeWhatIsAsked)
	agentDir := filepath.Join(c.env["HOME"], ".pi", "agent")
	writeFile(t, filepath.Join(agentDir, "models.json"), fake.ModelsJSON("openai-completions"))
	writeFile(t, filepath.Join(agentDir, "settings.json"), `{"defaultProvider":"fake","defaultModel":"m1"}`)
	c.env["FAKE_API_KEY"] = "test-key"
	sp := &sharedPrefix{c: c, ids: map[string]string{}, roots: map[string]string{}}
	for _, name := range []string{"proj1", "proj2", "proj3"} {
		root := mkdir(t, c.env["HOME"], name)
		writeFile(t, filepath.Join(root, "greet.txt"), "hello\n")
		worktreetest.Repo(t, root, nil)
		c.ok("projects", "add", root, "--trust", "--name", name)
		sp.roots[name] = root
	}
	code, out, errs := c.run("", "prompt", "--project", "proj3", "--worktree", "--yes", "from proj3")
	m := noteSession.FindStringSubmatch(errs)
	if code != 0 || out != "Done.\n" || m == nil {
		t.Fatalf("prompt --worktree = %d %q %q", code, out, errs)
	}
	sp.ids["proj3"], sp.wt3 = m[1], m[3]
	sp.prefix = m[1][:8]
	for _, name := range []string{"proj1", "proj2"} {
		c.ok("prompt", "--project", name, "--yes", "from "+name)
		id, path := onlySessionOf(t, c, name)
		sp.ids[name] = sp.reID(t, id, path)
	}
	return sp
}

// onlySessionOf returns the id and file of a project's one session.
func onlySessionOf(t *testing.T, c *cli, project string) (id, path string) {
	t.Helper()
	var rows []struct{ ID, Path string }
	if err := json.Unmarshal([]byte(c.ok("sessions", "list", project, "--json")), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("sessions list %s: %v %+v", project, err, rows)
	}
	return rows[0].ID, rows[0].Path
}

// reID gives a session the id it would have had if begun in the minute
// proj3's was (its first 8 digits those of sp.prefix), as sessions begun
// a second apart have: its file's name and lines, and its checkpoint
// journal, which names it and its file.
func (sp *sharedPrefix) reID(t *testing.T, id, path string) string {
	t.Helper()
	// The digits after the prefix change too, so that a session begun in
	// that minute already is renamed all the same (this helper is always
	// used, not only when the minute turned between the prompts).
	newID := sp.prefix + "-ffff" + id[13:]
	if newID == id {
		newID = sp.prefix + "-fffe" + id[13:]
	}
	rewrite := func(from, to string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, []byte(strings.ReplaceAll(string(data), id, newID)), 0o600); err != nil {
			t.Fatal(err)
		}
		if from != to {
			os.Remove(from)
		}
	}
	rewrite(path, filepath.Join(filepath.Dir(path), strings.ReplaceAll(filepath.Base(path), id, newID)))
	journals := filepath.Join(sp.c.env["PI_TUI_DATA_DIR"], "checkpoints", "sessions")
	if err := os.Rename(filepath.Join(journals, id), filepath.Join(journals, newID)); err != nil {
		t.Fatal(err)
	}
	rewrite(filepath.Join(journals, newID, "journal.jsonl"), filepath.Join(journals, newID, "journal.jsonl"))
	return newID
}

func (sp *sharedPrefix) greet(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "greet.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// refused checks that a command given the shared prefix exits 2 with one
// line naming each of the three sessions and its project, and how to
// choose.
func (sp *sharedPrefix) refused(t *testing.T, args ...string) {
	t.Helper()
	code, out, errs := sp.c.run("", args...)
	sp.checkRefusal(t, strings.Join(args, " "), code, out, errs)
}

func (sp *sharedPrefix) checkRefusal(t *testing.T, what string, code int, out, errs string) {
	t.Helper()
	want := []string{`"` + sp.prefix + `" names 3 sessions`, "nothing was done", "give more of the id, or name its project with --project P"}
	for _, name := range []string{"proj1", "proj2", "proj3"} {
		want = append(want, `"`+sp.ids[name]+`" (project "`+name+`"`)
	}
	if code != 2 || out != "" || strings.Count(errs, "\n") != 1 {
		t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line", what, code, out, errs)
	}
	for _, w := range want {
		if !strings.Contains(errs, w) {
			t.Errorf("%s: stderr %q lacks %q", what, errs, w)
		}
	}
}

// An id prefix three projects' sessions share is refused by every command
// that takes a session (each run a fresh process), naming the three, and
// nothing is undone, merged or discarded; --project picks the one of that
// project.
func TestAmbiguousSessionIDIsRefused(t *testing.T) {
	t.Parallel()
	sp := newSharedPrefix(t)
	c, p := sp.c, sp.prefix
	if sp.ids["proj1"][:8] != p || sp.ids["proj2"][:8] != p || sp.ids["proj1"] == sp.ids["proj3"] {
		t.Fatalf("ids %v do not share the prefix %s", sp.ids, p)
	}

	// No command picks one of the three: nothing is undone, merged or
	// discarded.
	sp.refused(t, "sessions", "changes", p)
	sp.refused(t, "sessions", "changes", p, "--json")
	sp.refused(t, "sessions", "undo", p, "--change", "1")
	sp.refused(t, "sessions", "merge", p)
	sp.refused(t, "sessions", "discard", p, "--yes")
	for dir, want := range map[string]string{sp.roots["proj1"]: "from proj1\n", sp.roots["proj2"]: "from proj2\n", sp.roots["proj3"]: "hello\n", sp.wt3: "from proj3\n"} {
		if got := sp.greet(t, dir); got != want {
			t.Errorf("a refused command changed %s/greet.txt to %q", dir, got)
		}
	}

	// --project picks the one of that project.
	if out := c.ok("sessions", "changes", p, "--project", "proj2"); !strings.HasPrefix(out, "Session "+sp.ids["proj2"]) || !strings.Contains(out, "greet.txt") {
		t.Errorf("changes --project proj2:\n%s", out)
	}
	if out := c.ok("sessions", "undo", p, "--change", "1", "--project", "proj1"); !strings.HasPrefix(out, "Undid change 1") {
		t.Errorf("undo --project proj1: %s", out)
	}
	if a, b := sp.greet(t, sp.roots["proj1"]), sp.greet(t, sp.roots["proj2"]); a != "hello\n" || b != "from proj2\n" {
		t.Errorf("after undo --project proj1: proj1 %q, proj2 %q", a, b)
	}
	if out := c.ok("sessions", "merge", p, "--project", "proj3", "--message", "m"); !strings.Contains(out, "Merged pi/") {
		t.Errorf("merge --project proj3: %s", out)
	}
	if got := sp.greet(t, sp.roots["proj3"]); got != "from proj3\n" {
		t.Errorf("proj3 after merge: %q", got)
	}
	if out := c.ok("sessions", "discard", p, "--project", "proj3", "--yes"); !strings.Contains(out, "deleted branch") {
		t.Errorf("discard --project proj3: %s", out)
	}
	if _, err := os.Stat(sp.wt3); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the worktree is still there: %v", err)
	}

	// instructions --session takes no --project: more of the id it is.
	code, out, errs := c.run("", "instructions", "--session", p)
	if code != 2 || out != "" || !strings.Contains(errs, "names 3 sessions") || strings.Contains(errs, "--project") {
		t.Errorf("instructions --session: %d %q %q", code, out, errs)
	}
}

// prompt --session with the shared prefix: with --project proj3 it
// continues proj3's session (not "another project's"); without
// --project, run from proj3's folder, it is refused like the rest.
func TestPromptSessionPrefixIsScopedByProject(t *testing.T) {
	t.Parallel()
	sp := newSharedPrefix(t)
	c, p := sp.c, sp.prefix

	if out := c.ok("prompt", "--project", "proj3", "--session", p, "--yes", "again"); out != "Done.\n" {
		t.Errorf("prompt --project proj3 --session %s = %q", p, out)
	}
	if got := sp.greet(t, sp.wt3); got != "again\n" {
		t.Errorf("proj3's session did not go on in its worktree: greet.txt %q", got)
	}
	_, path := onlySessionOf(t, c, "proj3")
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"again"`) {
		t.Error("the prompt is not in proj3's session file")
	}
	for _, name := range []string{"proj1", "proj2"} {
		if _, path := onlySessionOf(t, c, name); path == "" {
			t.Fatal("no session")
		} else if data, _ := os.ReadFile(path); strings.Contains(string(data), `"again"`) {
			t.Errorf("the prompt went to %s's session", name)
		}
	}

	// From proj3's folder, by the real program: the project is proj3, but
	// the id was not scoped to it, so nothing is picked.
	cmd := exec.Command(buildBinary(t), "prompt", "--session", p, "--yes", "once more")
	cmd.Dir = sp.roots["proj3"]
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	sp.checkRefusal(t, "prompt --session (from proj3's folder)", code, stdout.String(), stderr.String())
}
