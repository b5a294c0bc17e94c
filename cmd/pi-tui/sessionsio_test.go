package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeSession writes a Claude Code session run in cwd, as Claude Code
// keeps it under HOME/.claude/projects, and returns its file.
func claudeSession(t *testing.T, home, cwd, id string, extra ...string) string {
	t.Helper()
	slug := strings.NewReplacer("/", "-", ".", "-").Replace(cwd)
	lines := []string{
		`{"type":"summary","summary":"Parser fix <b>bold</b>","leafUuid":"u4"}`,
		fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"cwd":%q,"sessionId":%q,"version":"2.0.0","type":"user","message":{"role":"user","content":"IMPORTED-QUESTION why does <img src=x onerror=alert(1)> fail?"},"uuid":"u1","timestamp":"2025-10-01T09:00:00.000Z"}`, cwd, id),
		fmt.Sprintf(`{"parentUuid":"u1","isSidechain":false,"cwd":%q,"sessionId":%q,"type":"assistant","message":{"id":"m2","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"IMPORTED-ANSWER let me look."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"cat parser.go"}}]},"uuid":"u2","timestamp":"2025-10-01T09:00:01.000Z"}`, cwd, id),
		fmt.Sprintf(`{"parentUuid":"u2","isSidechain":false,"cwd":%q,"sessionId":%q,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"IMPORTED-TOOL-OUTPUT package parser"}]},"uuid":"u3","timestamp":"2025-10-01T09:00:02.000Z"}`, cwd, id),
		fmt.Sprintf(`{"parentUuid":"u3","isSidechain":false,"cwd":%q,"sessionId":%q,"type":"assistant","message":{"id":"m4","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"IMPORTED-FINAL it is fine."}]},"uuid":"u4","timestamp":"2025-10-01T09:00:03.000Z"}`, cwd, id),
	}
	lines = append(lines, extra...)
	path := filepath.Join(home, ".claude", "projects", slug, id+".jsonl")
	writeFile(t, path, strings.Join(lines, "\n")+"\n")
	return path
}

// TestSessionsImportAndExport: import from the command line (a dry run
// first), the project's list and count show the session at once, a second
// import writes nothing, and the session exports as HTML, Markdown and
// pi's own JSONL.
func TestSessionsImportAndExport(t *testing.T) {
	c := newCLI(t)
	home := c.env["HOME"]
	root := mkdir(t, home, "src", "proj")
	c.ok("projects", "add", root, "--name", "proj")
	src := claudeSession(t, home, root, "3f1e2d3c-0000-4000-8000-000000000001", `{"broken json`)
	claudeSession(t, home, filepath.Join(home, "elsewhere"), "3f1e2d3c-0000-4000-8000-000000000002")
	before, _ := os.ReadFile(src)

	code, out, errs := c.run("", "sessions", "import", "--dry-run")
	if code != 1 || !strings.Contains(out, "1 would be imported") || !strings.Contains(out, "Nothing was written (--dry-run).") {
		t.Fatalf("import --dry-run = %d\n%s\n%s", code, out, errs)
	}
	var list []struct{ ID, Title, Path string }
	json.Unmarshal([]byte(c.ok("sessions", "list", "proj", "--json")), &list)
	if len(list) != 0 {
		t.Fatalf("a dry run wrote sessions: %+v", list)
	}

	code, out, errs = c.run("", "sessions", "import")
	if code != 1 {
		t.Errorf("import with a broken line: exit %d, want 1", code)
	}
	if want := src + ":6: not a JSON object"; strings.Count(errs, "\n") != 2 || !strings.Contains(errs, "pi-tui: skipped "+want) {
		t.Errorf("stderr = %q, want the broken line named (%s) and a closing line", errs, want)
	}
	if !strings.Contains(out, "Claude Code new") || !strings.Contains(out, "Parser fix <b>bold</b> (5 entries)") {
		t.Errorf("import printed %q, want the session named", out)
	}
	if want := "1 in " + filepath.Join(home, "elsewhere") + ": pi-tui projects add " + filepath.Join(home, "elsewhere"); !strings.Contains(out, want) {
		t.Errorf("import printed %q, want the unmatched folder with the command that adds it (%s)", out, want)
	}
	json.Unmarshal([]byte(c.ok("sessions", "list", "proj", "--json")), &list)
	if len(list) != 1 || list[0].Title != "Parser fix <b>bold</b>" {
		t.Fatalf("sessions list after the import = %+v, want the imported session with its title", list)
	}
	var projs []struct {
		Name     string
		Sessions int
	}
	json.Unmarshal([]byte(c.ok("projects", "list", "--json")), &projs)
	if len(projs) != 1 || projs[0].Sessions != 1 {
		t.Errorf("projects list = %+v, want proj counting its imported session", projs)
	}
	file, _ := os.ReadFile(list[0].Path)

	code, out, _ = c.run("", "sessions", "import", "--from", "claude", "--project", "proj")
	if !strings.Contains(out, "0 imported (0 of them added to), 1 unchanged") {
		t.Errorf("a second import printed %q (exit %d), want nothing imported and the session unchanged", out, code)
	}
	if again, _ := os.ReadFile(list[0].Path); string(again) != string(file) {
		t.Error("a second import changed the session file")
	}
	if after, _ := os.ReadFile(src); string(after) != string(before) {
		t.Error("the import changed Claude Code's file")
	}

	// Exports.
	jsonl := c.ok("sessions", "export", list[0].ID, "--format", "jsonl")
	if jsonl != string(file) {
		t.Error("the JSONL export is not pi's file as it is")
	}
	md := c.ok("sessions", "export", list[0].ID[:13], "--format", "md")
	for _, w := range []string{"# Parser fix <b>bold</b>", "### User", "IMPORTED-QUESTION", "<details><summary>bash: cat parser.go</summary>", "IMPORTED-TOOL-OUTPUT", "IMPORTED-FINAL"} {
		if !strings.Contains(md, w) {
			t.Errorf("the Markdown export lacks %q:\n%s", w, md)
		}
	}
	htmlPath := filepath.Join(home, "out", "session.html")
	os.MkdirAll(filepath.Dir(htmlPath), 0o755)
	if out := c.ok("sessions", "export", list[0].ID, "-o", htmlPath); !strings.Contains(out, "Exported session "+list[0].ID+" to "+htmlPath+" (html).") {
		t.Errorf("export -o printed %q", out)
	}
	page, err := os.ReadFile(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	h := string(page)
	for _, w := range []string{"<details", "IMPORTED-TOOL-OUTPUT", "&lt;img src=x onerror=alert(1)&gt;", "Parser fix &lt;b&gt;bold&lt;/b&gt;"} {
		if !strings.Contains(h, w) {
			t.Errorf("the HTML export lacks %q", w)
		}
	}
	for _, bad := range []string{"<img", "<script", "<b>", "http://", "https://", "src=\"", "<link"} {
		if strings.Contains(h, bad) {
			t.Errorf("the HTML export holds %q: text not escaped, or something it would fetch", bad)
		}
	}
	c.fails(2, "--format is html, md or jsonl", "sessions", "export", list[0].ID, "--format", "pdf")
	c.fails(2, "--from is claude, codex, opencode or all", "sessions", "import", "--from", "cursor")
}
