package sessionimport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportEverySource imports the fixtures of every source (two Claude
// Code versions, both Codex line shapes, an opencode database made here and
// its older storage files) and reads what the model would see of each.
func TestImportEverySource(t *testing.T) {
	r := newRig(t)
	db := opencodeDB(t, filepath.Join(r.loc.OpenCode, "opencode.db"))
	fillOpenCode(t, db)
	db.Close()
	writeOCStorage(t, r.loc.OpenCode)
	before := treeHash(t, r.home)

	res := r.run(t, Options{})
	got := bySource(res)
	if len(res.Sessions) != 6 {
		t.Fatalf("wrote %d sessions, want 6 (2 Claude Code, 2 Codex, 2 opencode): %s", len(res.Sessions), jsonOf(res.Sessions))
	}

	want := map[string][]string{
		"0b6f3f4e-1c1a-4d55-9f4b-6a2f0d1e2a01": {
			"user: Why does parser_test fail?",
			`assistant: {thinking Look at the test first.} Let me run it. {bash {"command":"go test ./parser","timeout":120}} [Grep] {"pattern":"func Parse"}`,
			"toolResult: bash (error) --- FAIL: TestParse (0.00s)\nexpected 3, got 2",
			"user: Result of Grep:\nparser.go:12:func Parse(",
			`assistant: {edit {"path":"/home/user/src/proj/parser.go","edits":[{"oldText":"return 2","newText":"return 3"}]}}`,
			"toolResult: edit The file /home/user/src/proj/parser.go has been updated.",
			"assistant: Fixed: Parse now returns 3.",
		},
		"7d1c2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f": {
			"user: Add a README",
			`assistant: {write {"path":"/home/user/src/proj/sub/README.md","content":"# Sub\n"}}`,
			"toolResult: write File created successfully at: /home/user/src/proj/sub/README.md",
			"user: Thanks, and the licence?",
			"assistant: MIT would suit.",
		},
		"5f0a1b2c-3d4e-4f50-8a1b-2c3d4e5f6a7b": {
			"user: list the files",
			`assistant: {thinking **Listing files**} {bash {"command":"ls -la","timeout":10}}`,
			"toolResult: bash README.md\nmain.go\n",
			"assistant: Two files: README.md and main.go.",
		},
		"019a2d7a-41c4-78b1-b7cc-a45d62a89cd5": {
			"user: bump the version in main.go",
			`assistant: {thinking **Reading main.go**} {bash {"command":"sed -n 1,20p main.go"}}`,
			"toolResult: bash Exit code: 0\nOutput:\npackage main\nconst version = \"1.0\"\n",
			"assistant: [apply_patch] \"*** Begin Patch\\n*** Update File: main.go\\n-const version = \\\"1.0\\\"\\n+const version = \\\"1.1\\\"\\n*** End Patch\"",
			"user: Result of apply_patch:\nSuccess. Updated the following files:\nM main.go\n",
			"assistant: Bumped to 1.1.",
		},
		"ses_top": {
			"user: rename loadConfig to readConfig",
			`assistant: {thinking Find the callers first.} [grep] {"pattern":"loadConfig"} {read {"path":"/home/user/src/proj/config.go"}}`,
			"toolResult: read <file>\n00001| package config\n</file>",
			"user: Result of grep:\nconfig.go:3",
			`assistant: {edit {"path":"/home/user/src/proj/config.go","edits":[{"oldText":"loadConfig","newText":"readConfig"}]}}`,
			"toolResult: edit (error) oldString not found",
			"assistant: Renamed in config.go.",
		},
		"ses_old": {
			"user: what does main do?",
			`assistant: {bash {"command":"go run .","timeout":60}}`,
			"toolResult: bash hello",
			"assistant: It prints hello.",
		},
	}
	for id, lines := range want {
		s, ok := got[id]
		if !ok {
			t.Errorf("session %s was not imported", id)
			continue
		}
		if s.ProjectID != "p1" || filepath.Dir(s.File) != r.proj.Dir {
			t.Errorf("session %s went to %s (project %q), want the project's folder %s", id, s.File, s.ProjectID, r.proj.Dir)
		}
		have := contextOf(t, s.File)
		if strings.Join(have, "\n---\n") != strings.Join(lines, "\n---\n") {
			t.Errorf("session %s: the model would see\n%s\nwant\n%s", id, strings.Join(have, "\n---\n"), strings.Join(lines, "\n---\n"))
		}
	}
	titles := map[string]string{"0b6f3f4e-1c1a-4d55-9f4b-6a2f0d1e2a01": "Fix the failing parser test", "7d1c2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f": "README and licence",
		"ses_top": "Rename the config loader", "ses_old": "Old storage session"}
	for id, title := range titles {
		if got[id].Title != title {
			t.Errorf("session %s is titled %q, want %q", id, got[id].Title, title)
		}
	}

	// What the other agents add themselves stays out of every file.
	for _, f := range filesIn(t, r.proj.Dir) {
		b, _ := os.ReadFile(f)
		for _, secret := range []string{"SECRET-HOUSE-RULES", "SIDECHAIN", "RULES", "OPENCODE-SYNTHETIC", "SUBAGENT", "<command-name>", "Caveat:", "environment_context", "continued from a previous"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds %q, which the other agent injected", f, secret)
			}
		}
	}

	// Each odd line is named once, by file and line; the rest was read.
	probs := make([]string, len(res.Problems))
	for i, p := range res.Problems {
		probs[i] = p.String()
	}
	for _, w := range []string{
		"0b6f3f4e-1c1a-4d55-9f4b-6a2f0d1e2a01.jsonl:12: not a JSON object",
		`0b6f3f4e-1c1a-4d55-9f4b-6a2f0d1e2a01.jsonl:14: unknown entry type "mystery-new-kind"`,
		"rollout-2025-06-01T08-00-00-5f0a1b2c-3d4e-4f50-8a1b-2c3d4e5f6a7b.jsonl:11: not a JSON object",
		`a45d62a89cd5.jsonl:15: unknown entry type "brand_new_line_kind"`,
		`a45d62a89cd5.jsonl:16: unknown response item type "mystery_item"`,
		"broken.json: not an opencode message",
	} {
		if !has(probs, w) {
			t.Errorf("no problem reported like %q; got:\n%s", w, strings.Join(probs, "\n"))
		}
	}
	if len(probs) != 6 {
		t.Errorf("%d problems reported, want 6:\n%s", len(probs), strings.Join(probs, "\n"))
	}

	// The sources are read, never written.
	after := treeHash(t, r.home)
	if jsonOf(before) != jsonOf(after) {
		t.Errorf("the import changed the other agents' files:\nbefore %v\nafter  %v", before, after)
	}
}

// TestReimportAddsOnlyWhatIsNew imports, imports again (nothing is
// written), then lets the sources grow and imports a third time: only the
// new turns are appended, after what was there.
func TestReimportAddsOnlyWhatIsNew(t *testing.T) {
	r := newRig(t)
	db := opencodeDB(t, filepath.Join(r.loc.OpenCode, "opencode.db"))
	fillOpenCode(t, db)
	first := r.run(t, Options{})
	files := treeHash(t, r.proj.Dir)

	again := r.run(t, Options{})
	if len(again.Sessions) != 0 || again.Unchanged != len(first.Sessions) {
		t.Fatalf("a second import wrote %d sessions and found %d unchanged, want 0 and %d", len(again.Sessions), again.Unchanged, len(first.Sessions))
	}
	if jsonOf(treeHash(t, r.proj.Dir)) != jsonOf(files) {
		t.Fatal("a second import with nothing new changed the session files")
	}

	claude := filepath.Join(r.loc.Claude, "projects", "-home-user-src-proj", "7d1c2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f.jsonl")
	f, err := os.OpenFile(claude, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"parentUuid":"b7","isSidechain":false,"cwd":"/home/user/src/proj/sub","type":"user","message":{"role":"user","content":"And a CHANGELOG?"},"uuid":"b8","timestamp":"2025-11-04T10:00:00.000Z"}` + "\n")
	f.WriteString(`{"parentUuid":"b8","isSidechain":false,"cwd":"/home/user/src/proj/sub","type":"assistant","message":{"model":"claude-opus-4-1-20250805","id":"msg_b9","role":"assistant","content":[{"type":"text","text":"Keep a Changelog format."}]},"uuid":"b9","timestamp":"2025-11-04T10:00:01.000Z"}` + "\n")
	f.Close()
	addOCMessage(t, db, "ses_top", "msg_003", 1762000009000, `{"role":"user","time":{"created":1762000009000}}`, `{"type":"text","text":"now the tests"}`)
	db.Close()

	third := r.run(t, Options{})
	got := bySource(third)
	if len(third.Sessions) != 2 {
		t.Fatalf("the third import wrote %d sessions, want the 2 that grew: %s %s", len(third.Sessions), jsonOf(third.Sessions), jsonOf(third))
	}
	cs := got["7d1c2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"]
	if !cs.Appended || cs.Entries != 2 {
		t.Errorf("the Claude Code session got %d entries (appended %v), want the 2 new ones appended", cs.Entries, cs.Appended)
	}
	have := contextOf(t, cs.File)
	wantTail := []string{"assistant: MIT would suit.", "user: And a CHANGELOG?", "assistant: Keep a Changelog format."}
	if len(have) != 7 || strings.Join(have[4:], "|") != strings.Join(wantTail, "|") {
		t.Errorf("after the re-import the model would see %q, want 7 messages ending %q", have, wantTail)
	}
	oc := contextOf(t, got["ses_top"].File)
	if len(oc) != 8 || oc[7] != "user: now the tests" {
		t.Errorf("the opencode session reads %q, want its 7 messages and then the new one", oc)
	}
	if n := len(filesIn(t, r.proj.Dir)); n != len(first.Sessions) {
		t.Errorf("%d session files after re-importing, want %d: no new file for a session imported before", n, len(first.Sessions))
	}
}
