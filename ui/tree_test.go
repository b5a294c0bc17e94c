package ui

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// writePiSession writes a session file as pi 1.6 does, in pi's folder
// for the kit's project: a bash call whose command redirects and quotes,
// a read, an extension's custom entry and custom message, a label on the
// first message, model and thinking changes, and a branch left with its
// summary. The commands go through Go's JSON, which writes > and & as
// \u003e and \u0026, as pi-tui's own files have them.
func writePiSession(t *testing.T, r *kitRig) {
	t.Helper()
	root := filepath.Join(r.home, "proj")
	const id = "019ad7a2-0000-7000-8000-000000000001"
	lines := []map[string]any{
		{"type": "session", "version": 3, "id": id, "timestamp": "2026-12-01T05:33:53.864Z", "cwd": root},
		{"type": "model_change", "id": "m0", "parentId": nil, "timestamp": "2026-12-01T05:33:54.000Z", "provider": "fake", "modelId": "m1"},
		{"type": "thinking_level_change", "id": "t0", "parentId": "m0", "timestamp": "2026-12-01T05:33:54.001Z", "thinkingLevel": "off"},
		{"type": "message", "id": "u1", "parentId": "t0", "timestamp": "2026-12-01T05:33:54.100Z",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "run the failing script"}}, "timestamp": 1}},
		{"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-12-01T05:33:54.200Z",
			"message": map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "toolCall", "id": "c1", "name": "bash", "arguments": map[string]any{"command": `echo "it's done" >&2; exit 3`}},
				map[string]any{"type": "toolCall", "id": "c2", "name": "read", "arguments": map[string]any{"path": "notes.txt", "offset": 2, "limit": 5}},
			}, "api": "openai-completions", "provider": "fake", "model": "m1", "stopReason": "toolUse", "timestamp": 2}},
		{"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-12-01T05:33:54.300Z",
			"message": map[string]any{"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": "it's done\n\nCommand exited with code 3"}}, "isError": true, "timestamp": 3}},
		{"type": "message", "id": "r2", "parentId": "r1", "timestamp": "2026-12-01T05:33:54.400Z",
			"message": map[string]any{"role": "toolResult", "toolCallId": "c2", "toolName": "read", "content": []any{map[string]any{"type": "text", "text": "hello"}}, "isError": false, "timestamp": 4}},
		{"type": "message", "id": "a2", "parentId": "r2", "timestamp": "2026-12-01T05:33:54.500Z",
			"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "The script failed with exit 3."}}, "api": "openai-completions", "provider": "fake", "model": "m1", "stopReason": "stop", "timestamp": 5}},
		{"type": "custom", "customType": "plan-mode-state", "data": map[string]any{"on": true}, "id": "x1", "parentId": "a2", "timestamp": "2026-12-01T05:33:55.000Z"},
		{"type": "label", "id": "l1", "parentId": "x1", "timestamp": "2026-12-01T05:33:55.100Z", "targetId": "u1", "label": "before-fix"},
		{"type": "custom_message", "customType": "demo-note", "content": "Remember the \x1b]0;pwned\x07tests", "display": true, "id": "n1", "parentId": "l1", "timestamp": "2026-12-01T05:33:55.200Z"},
		{"type": "branch_summary", "id": "b1", "parentId": "a2", "timestamp": "2026-12-01T05:33:56.000Z", "fromId": "n1", "summary": "Tried the other fix first.\nIt did not help."},
		{"type": "message", "id": "u2", "parentId": "b1", "timestamp": "2026-12-01T05:33:56.100Z",
			"message": map[string]any{"role": "user", "content": "now fix it", "timestamp": 6}},
		{"type": "message", "id": "a3", "parentId": "u2", "timestamp": "2026-12-01T05:33:56.200Z",
			"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Fixed."}}, "api": "openai-completions", "provider": "fake", "model": "m1", "stopReason": "stop", "timestamp": 7}},
	}
	var b strings.Builder
	for _, l := range lines {
		raw, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(raw)
		b.WriteByte('\n')
	}
	dir := pisession.SessionsDir(filepath.Join(r.home, ".pi", "agent"), root)
	writeAt(t, filepath.Join(dir, pisession.FileName("2026-12-01T05:33:53.864Z", id)), b.String())
}

// selectedRow waits until the row under the cursor (marked ›) holds want.
func selectedRow(t *testing.T, r *kitRig, want string) {
	t.Helper()
	r.sc.WaitFrame(func(frame string) bool {
		for _, l := range strings.Split(frame, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "› ") && strings.Contains(l, want) {
				return true
			}
		}
		return false
	})
}

// TestTreeNamesEntriesAndSearches: /tree of a session pi wrote shows a
// bash call's command as the text it is (not JSON), a read's path and
// lines, the extension's custom entry by its customType and its message
// by its name, the label on the row it labels, the model and thinking
// changes and the branch summary, each shown safely; / narrows the rows
// to those holding every word typed, esc clears the search and keeps the
// entry found selected, home and end go to the first and the last row;
// /fork's list names them alike; enter on a match continues from it,
// a branch summary too. At 80×24 and 120×40.
func TestTreeNamesEntriesAndSearches(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(itoa(size[0])+"x"+itoa(size[1]), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size[0], size[1], readMissing, true)
			writePiSession(t, r)
			r.waitFor("proj")
			r.keys("enter", "o")
			r.waitFor("run the failing script")
			r.keys("enter")
			r.waitFor("Fixed.")
			r.command("/tree", "Tree · every branch")
			named := []string{
				`pi: [bash: echo "it's done" >&2; exit 3] [read: notes.txt:2-6]`,
				`[bash: echo "it's done" >&2; exit 3] ✗ Command exited with code 3`,
				"[read: notes.txt:2-6] ✓ hello",
				"[model: fake/m1]",
				"[thinking: off]",
				"[before-fix] you: run the failing script",
				"[custom: plan-mode-state]",
				`[demo-note]: Remember the \x1b]0;pwned\x07tests`,
				"[branch summary]: Tried the other fix first.",
				"▶ pi: Fixed.",
			}
			r.waitScreen(named...)
			frame := r.sc.WaitFrame(func(string) bool { return true })
			for _, internal := range []string{`\u003e`, `\u0026`, "(calls", `{"command"`, " custom\n"} {
				if strings.Contains(frame, internal) {
					t.Errorf("the tree shows %q:\n%s", internal, frame)
				}
			}

			// home and end: the first row and the last.
			r.keys("home")
			selectedRow(t, r, "[model: fake/m1]")
			r.keys("end")
			selectedRow(t, r, "▶ pi: Fixed.")

			// / narrows to the rows holding every word, in any case.
			r.keys("/")
			r.waitScreen("/ ", "type words to narrow")
			r.keys("Bash EXIT 3")
			r.waitScreen("of 2 matching, of 12 entries", `pi: [bash: echo "it's done" >&2; exit 3]`, `[bash: echo "it's done" >&2; exit 3] ✗`)
			frame = r.sc.WaitFrame(func(string) bool { return true })
			if strings.Contains(frame, "you: run the failing script") || strings.Contains(frame, "Fixed.") || strings.Contains(frame, "pi: The script failed") {
				t.Errorf("the search shows rows without its words:\n%s", frame)
			}
			// A label is searched too; q types, it does not close.
			r.keys("ctrl+u")
			r.keys("before-fix q")
			r.waitScreen("no entry holds every word of the search")
			r.keys("backspace", "backspace")
			r.waitScreen("1 of 1 matching")
			selectedRow(t, r, "[before-fix] you: run the failing script")
			// esc clears the search; the entry found stays selected.
			r.keys("esc")
			r.waitScreen("of 12 entries", "▶ pi: Fixed.")
			selectedRow(t, r, "[before-fix] you: run the failing script")
			r.keys("esc")
			r.waitScreen("Fixed.")

			r.command("/fork", "Fork · a new session from which entry?")
			r.waitScreen(named...)
			r.keys("esc")

			// enter on a match continues from it, here an entry only pi's
			// tree shows: the branch left behind and its summary.
			r.command("/tree", "Tree · every branch")
			r.keys("/")
			r.waitScreen("type words to narrow")
			r.keys("summary")
			r.waitScreen("1 of 1 matching")
			r.keys("enter")
			r.sc.WaitFrame(func(f string) bool {
				return strings.Contains(f, "branched") && strings.Contains(f, "The script failed with exit 3.") && !strings.Contains(f, "now fix it")
			})
			// The turn is over (it branched): /tree opens at once.
			r.say("/tree")
			selectedRow(t, r, "▶ [branch summary]: Tried the other fix first.")
			r.keys("esc")
			r.final()
			if found := rawEscapes(r.raw.Bytes()); len(found) > 0 {
				t.Errorf("the session file's escape sequences reached the terminal: %q", found)
			}
		})
	}
}

// /tree shows every branch, the current one marked, and continues from any
// entry; /fork starts a new session holding the branch up to an entry.
func TestTreeAndFork(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 120, 36, echo, true)
	r.chat()
	r.say("one")
	r.waitFor("answer to one")
	r.say("two")
	r.waitFor("answer to two")
	// Branch before "two" and send another message there.
	r.command("/tree", "Tree · every branch")
	r.keys("up") // from the leaf (answer to two) to "two"
	r.keys("enter")
	r.waitFor("branched")
	r.keys("backspace", "backspace", "backspace") // the restored "two"
	r.tm.Type("three")
	r.keys("enter")
	r.waitFor("answer to three")
	// Both branches are in the tree: "two" off the branch, "three" on it.
	r.command("/tree", "Tree · every branch", "you: two", "you: three", "┬")
	r.keys("esc")
	// Fork from "one"'s answer: a new session with the first exchange.
	r.command("/fork", "Fork · a new session from which entry?")
	r.keys("up", "up", "up", "up", "up", "up") // to the top
	r.keys("down")                             // "answer to one"
	r.keys("enter")
	r.waitFor("forked: a new session")
	r.keys("ctrl+l")
	r.waitFor("one  2 messages", "one  6 messages")
	r.final()
}
