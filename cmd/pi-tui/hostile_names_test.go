package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// hostile is a name a clone can give its folder, and so its project: the
// bidirectional controls (an override, isolates, marks), characters that
// draw nothing (zero-width space, BOM, soft hyphen, word joiner), C0 and
// C1 controls with escape sequences (colour, a window title, CSI as one
// byte), the line and paragraph separators, a tab and a line break.
const hostile = "evil\u202egnp.exe" + "\u2066\u2067\u2068\u2069\u200e\u200f\u061c" + "\u200b\ufeff\u00ad\u2060" +
	"\x1b[31m\x1b]0;TITLE\x07\x08\x7f" + "\u009b2J\u0085" + "\u2028\u2029" + "\tTAB\nFORGED"

// actsOrHides is this test's own list of what must never reach the
// terminal raw, written apart from safetext so that a mistake there
// cannot hide here: C0 controls but the line feed, DEL and the C1
// controls; the bidirectional embeddings, overrides, isolates and marks;
// characters that draw nothing; the line and paragraph separators; and,
// beyond the list, every control, format or separator character Unicode
// knows.
func actsOrHides(r rune) bool {
	switch {
	case r == '\n':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff, r == 0x00ad, r == 0x180e:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// assertShownAsText fails when out holds a byte that is not UTF-8, a
// character actsOrHides names, or a line that the name's line break
// started.
func assertShownAsText(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: the output is not UTF-8:\n%q", what, out)
		return
	}
	for i, r := range out {
		if actsOrHides(r) {
			t.Errorf("%s: %U reaches the terminal raw at byte %d:\n%q", what, r, i, out)
			return
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "FORGED") {
			t.Errorf("%s: the name's line break starts a line:\n%s", what, out)
		}
	}
}

// writeHostileFile writes a file whose name is hostile too, then answers.
func writeHostileFile(n int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult == "" {
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: fmt.Sprintf("w%d", n), Name: "write",
			Args: map[string]string{"path": "file " + hostile + ".txt", "content": fmt.Sprintf("turn %d\n", n)}}}}
	}
	return fakemodel.Reply{Text: "Done."}
}

// step is one command of the walk: its path in the command table, the
// arguments after it, standard input, the exit status, and whether its
// output must name the project, a file or a session (then it shows the
// name's U+202E as \u202e).
type step struct {
	path  string
	args  []string
	stdin string
	code  int
	names bool
}

// Commands that print nothing from disk, and why.
var printNoNames = map[string]string{
	"help":       "its text is pi-tui's own",
	"completion": "prints a fixed script (the candidates it asks for are walked as __complete)",
	"serve":      "prints its address, key fingerprint and log path, pi-tui's own; the sessions it serves are the terminal UI",
}

// Every command the CLI has, walked over a project whose folder, name,
// group, files, session title and first message are hostile: no byte a
// terminal would act on, no character that reorders or hides text, and
// no line the name's line break would start reaches standard output or
// error, JSON included; the names are there, shown as escapes. The walk
// goes by the command table, so a command added to it without a step here
// fails this test.
func TestEveryCommandShowsHostileNamesAsText(t *testing.T) {
	t.Parallel()
	worktreetest.Need(t)
	c := newCLI(t)
	env := worktreetest.Env(t)
	for _, k := range []string{"PATH", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		c.env[k] = env(k)
	}
	fakeAgent(t, c, writeHostileFile)

	src := mkdir(t, c.env["HOME"], "src")
	root := filepath.Join(src, hostile)
	worktreetest.Repo(t, root, map[string]string{"AGENTS.md": "Root rules.\n", hostile + "/AGENTS.md": "Nested rules.\n"})
	moved := filepath.Join(src, "moved "+hostile)
	memFile := filepath.Join(t.TempDir(), "notes "+hostile)
	folder := mkdir(t, src, "folder "+hostile)
	folderMoved := filepath.Join(src, "folder moved "+hostile)

	claudeHostile(t, c.env["HOME"], root)

	var projectID, sessionID, worktreeID string
	id := func(ptr *string) string { return "\x00" + fmt.Sprintf("%p", ptr) } // placeholder, resolved when the step runs
	ids := map[string]*string{id(&projectID): &projectID, id(&sessionID): &sessionID, id(&worktreeID): &worktreeID}
	P, S, W := id(&projectID), id(&sessionID), id(&worktreeID)

	steps := []step{
		{path: "projects add", args: []string{root, "--trust"}, names: true},
		{path: "projects add", args: []string{root}, names: true}, // already registered
		{path: "projects add", args: []string{filepath.Join(root, "missing")}, code: 1, names: true},
		{path: "projects list", names: true},
		{path: "projects list", args: []string{"--all", "--json"}, names: true},
		{path: "projects rename", args: []string{P, "renamed " + hostile}, names: true},
		{path: "projects pin", args: []string{P}, names: true},
		{path: "projects unpin", args: []string{P}, names: true},
		{path: "projects archive", args: []string{P}, names: true},
		{path: "projects restore", args: []string{P}, names: true},
		{path: "projects untrust", args: []string{P}, names: true},
		{path: "projects trust", args: []string{P}, names: true},
		{path: "projects group", args: []string{"grp\u202e\u2067\u200b\u00ad\x1b[31m\u009b\nFORGED", P}, names: true}, // groups hold 64 bytes
		{path: "projects list", names: true},
		{path: "projects ungroup", args: []string{P}, names: true},
		{path: "projects pin", args: []string{"no such " + hostile}, code: 1, names: true},
		{path: "memory show", args: []string{P}, names: true}, // none yet: says so, naming the project
		{path: "memory set", args: []string{P, "--file", "-"}, stdin: "Staging is hermes.", names: true},
		{path: "memory set", args: []string{P, "--file", memFile}, code: 1, names: true},
		{path: "memory show", args: []string{P}},
		{path: "memory show", args: []string{"--json", P}},
		{path: "memory agent-writes", args: []string{P, "on"}, names: true},
		{path: "memory agent-writes", args: []string{P}, names: true},
		{path: "instructions", args: []string{"--project", P, hostile + "/x.go"}, names: true},
		{path: "instructions", args: []string{"--project", P, "--json", hostile + "/x.go"}, names: true},
		{path: "instructions", args: []string{"--root", filepath.Join(root, "missing")}, code: 1, names: true},
		{path: "prompt", args: []string{"--project", P, "--yes", "first " + hostile}},
		{path: "prompt", args: []string{"--project", P, "--json", "--yes", "second " + hostile}, names: true},
		{path: "sessions list", args: []string{P}, names: true},
		{path: "sessions list", args: []string{P, "--json"}, names: true},
		{path: "sessions import", args: []string{"--from", "claude", "--dry-run", "--json"}, names: true}, // a Claude Code session titled hostile, run in root
		{path: "sessions import", args: []string{"--from", "claude"}, names: true},
		{path: "sessions export", args: []string{S, "-o", filepath.Join(root, "export.html")}, names: true},
		{path: "sessions changes", args: []string{S}, names: true},
		{path: "sessions changes", args: []string{S, "--json"}, names: true},
		{path: "sessions undo", args: []string{S, "--change", "1"}, code: 1, names: true}, // the second prompt wrote the file since
		{path: "sessions undo", args: []string{S, "--change", "1", "--force"}, names: true},
		{path: "instructions", args: []string{"--session", S}, names: true},
		{path: "prompt", args: []string{"--project", P, "--worktree", "--yes", "third " + hostile}},
		{path: "sessions list", args: []string{P}, names: true},
		{path: "sessions merge", args: []string{W}, names: true},
		{path: "sessions discard", args: []string{W, "--yes"}},
		{path: "rpc", args: []string{"--project", P}, stdin: `{"id":"1","type":"get_state"}` + "\n"},
		{path: completeCommand, args: []string{"--", "sessions", "list", ""}}, // the shell's completion of PROJECT
		// Without pi (none on this PATH): the provider and MCP commands say
		// what to install; a name they refuse is quoted as text.
		{path: "providers"},
		{path: "providers add", args: []string{"p" + hostile, "--base-url", "http://127.0.0.1:1"}, code: 2, names: true},
		{path: "login", args: []string{"p" + hostile}, code: 1},
		{path: "logout", args: []string{"p" + hostile}, code: 1},
		{path: "mcp list", args: []string{"--project", P}, code: 1},
		{path: "mcp add", args: []string{"s" + hostile, "--", "true"}, code: 1},
		{path: "mcp remove", args: []string{"s" + hostile}, code: 2, names: true},
		{path: "mcp login", args: []string{"s" + hostile}, code: 2, names: true},
		{path: "mcp logout", args: []string{"s" + hostile}, code: 2, names: true},
		{path: "mcp enable", args: []string{"s" + hostile}, code: 2, names: true},
		{path: "mcp disable", args: []string{"s" + hostile}, code: 2, names: true},
		{path: "projects folders add", args: []string{P, folder}, names: true},
		{path: "projects folders", args: []string{P}, names: true},
		{path: "projects folders", args: []string{P, "--json"}, names: true},
		{path: "projects folders trust", args: []string{P, folder}, names: true},
		{path: "projects folders untrust", args: []string{P, folder}, names: true},
		{path: "projects folders relocate", args: []string{P, folder, folderMoved}, names: true},
		{path: "projects folders remove", args: []string{P, folderMoved}, names: true},
		{path: "projects relocate", args: []string{P, moved}, names: true},
		{path: "projects remove", args: []string{P}, names: true},
	}

	walked := map[string]bool{}
	for i, s := range steps {
		words := strings.Fields(s.path)
		args := append(append([]string{}, words...), s.args...)
		for j, a := range args {
			if p, ok := ids[a]; ok {
				args[j] = *p
			}
		}
		switch s.path {
		case "projects relocate":
			if err := os.Rename(root, moved); err != nil {
				t.Fatal(err)
			}
		case "projects folders relocate":
			if err := os.Rename(folder, folderMoved); err != nil {
				t.Fatal(err)
			}
		}
		code, out, errs := c.run(s.stdin, args...)
		what := fmt.Sprintf("step %d: pi-tui %s", i, s.path)
		if code != s.code {
			t.Fatalf("%s: exit %d, want %d\nstdout: %q\nstderr: %q", what, code, s.code, out, errs)
		}
		assertShownAsText(t, what+" (stdout)", out)
		assertShownAsText(t, what+" (stderr)", errs)
		if s.names && !strings.Contains(out+errs, `\u202e`) {
			t.Errorf("%s: the output does not name the project, file or session (no \\u202e):\nstdout: %s\nstderr: %s", what, out, errs)
		}
		walked[s.path] = true

		// What the next steps name.
		switch {
		case s.path == "projects add" && i == 0:
			var list []struct{ ID string }
			if err := json.Unmarshal([]byte(c.ok("projects", "list", "--json")), &list); err != nil || len(list) != 1 {
				t.Fatalf("projects list --json = %v, %v", list, err)
			}
			projectID = list[0].ID
		case s.path == "prompt" && sessionID == "":
			var rows []struct{ ID, Path string }
			if err := json.Unmarshal([]byte(c.ok("sessions", "list", projectID, "--json")), &rows); err != nil || len(rows) != 1 {
				t.Fatalf("sessions list --json = %v, %v", rows, err)
			}
			sessionID = rows[0].ID
			nameSession(t, rows[0].Path, "title "+hostile)
		case s.path == completeCommand && strings.TrimSpace(out) != projectID:
			// The project's id: its name cannot be typed back as it shows.
			t.Errorf("completion of PROJECT = %q, want the id %s", out, projectID)
		case s.path == "prompt" && strings.Contains(strings.Join(s.args, " "), "--worktree"):
			m := noteSession.FindStringSubmatch(errs)
			if m == nil {
				t.Fatalf("prompt --worktree said %q", errs)
			}
			worktreeID = m[1]
		}
	}

	for _, cmd := range commands {
		if !walked[cmd.path] && printNoNames[cmd.path] == "" {
			t.Errorf("pi-tui %s is not walked: add a step for it, or say in printNoNames why it prints no name", cmd.path)
		}
	}
}

// claudeHostile writes a Claude Code session run in root whose title and
// text are hostile.
func claudeHostile(t *testing.T, home, root string) {
	t.Helper()
	line := func(v map[string]any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	writeFile(t, filepath.Join(home, ".claude", "projects", "-x", "7c7c7c7c-0000-4000-8000-000000000001.jsonl"), strings.Join([]string{
		line(map[string]any{"type": "summary", "summary": "claude " + hostile}),
		line(map[string]any{"parentUuid": nil, "cwd": root, "type": "user", "uuid": "u1", "timestamp": "2025-10-01T09:00:00Z",
			"message": map[string]any{"role": "user", "content": "asked " + hostile}}),
		line(map[string]any{"parentUuid": "u1", "cwd": root, "type": "assistant", "uuid": "u2", "timestamp": "2025-10-01T09:00:01Z",
			"message": map[string]any{"id": "m", "role": "assistant", "model": "x", "content": []any{map[string]any{"type": "text", "text": "answered " + hostile}}}}),
	}, "\n")+"\n")
}

// nameSession gives a session a title as pi's /name does: a session_info
// entry appended to its file.
func nameSession(t *testing.T, path, name string) {
	t.Helper()
	appendEntry(t, path, map[string]any{"type": "session_info", "id": "1a1a1a1a", "name": name})
}
