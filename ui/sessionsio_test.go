package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// /export writes the session as an HTML page in the project folder; the
// session list imports Claude Code's sessions with I, lists them at once,
// and exports the selected one with e.
func TestExportAndImportFromTheScreens(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 140, 30, echo, true)
	root := filepath.Join(r.home, "proj")
	r.chat()
	r.say("question <b>one</b>")
	r.waitFor("answer to question")
	r.command("/export", "exported to")
	pages, _ := filepath.Glob(filepath.Join(root, "pi-session-*.html"))
	if len(pages) != 1 {
		t.Fatalf("/export wrote %v, want one page in the project folder", pages)
	}
	if b, _ := os.ReadFile(pages[0]); !strings.Contains(string(b), "question &lt;b&gt;one&lt;/b&gt;") {
		t.Errorf("the exported page lacks the question, escaped")
	}

	// A Claude Code session run in the project's folder.
	dir := filepath.Join(r.home, ".claude", "projects", "-proj")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "6b6b6b6b-0000-4000-8000-000000000001.jsonl"), []byte(strings.Join([]string{
		`{"type":"summary","summary":"From Claude Code","leafUuid":"u2"}`,
		fmt.Sprintf(`{"parentUuid":null,"cwd":%q,"type":"user","message":{"role":"user","content":"CLAUDE-QUESTION"},"uuid":"u1","timestamp":"2025-10-01T09:00:00.000Z"}`, root),
		fmt.Sprintf(`{"parentUuid":"u1","cwd":%q,"type":"assistant","message":{"id":"m2","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"CLAUDE-ANSWER"}]},"uuid":"u2","timestamp":"2025-10-01T09:00:01.000Z"}`, root),
	}, "\n")+"\n"), 0o644)
	r.sessions("question <b>one</b>")
	r.keys("I")
	r.waitFor("imported 1 sessions (0 added to), 0 unchanged", "From Claude Code  2 messages")
	r.keys("down") // the imported session is older: second
	r.keys("e")
	r.waitFor("exported to")
	r.final()
	pages, _ = filepath.Glob(filepath.Join(root, "pi-session-*.html"))
	found := false
	for _, p := range pages {
		b, _ := os.ReadFile(p)
		found = found || strings.Contains(string(b), "CLAUDE-ANSWER")
	}
	if len(pages) != 2 || !found {
		t.Errorf("e on the imported session wrote %v, want a second page holding its answer", pages)
	}
}
