package sessionexport

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/pisession"
)

type msg struct {
	Message pisession.Message `json:"message"`
}

// branched writes a session with two branches: the shown one (a question,
// an edit call with its result, an answer) and one left behind after the
// question. The user's text is hostile markup.
func branched(t *testing.T) *pisession.Session {
	t.Helper()
	at := time.Date(2025, 10, 1, 9, 0, 0, 0, time.UTC)
	user := func(s string) msg {
		return msg{pisession.Message{Role: "user", Content: pisession.TextContent(s), Timestamp: at.UnixMilli()}}
	}
	asst := func(parts ...pisession.Part) msg {
		return msg{pisession.Message{Role: "assistant", Content: pisession.PartsContent(parts...), API: "openai-completions", Provider: "fake", Model: "m1", Usage: &pisession.Usage{}, StopReason: "stop", Timestamp: at.UnixMilli()}}
	}
	args, _ := json.Marshal(map[string]any{"path": "greet.txt", "edits": []map[string]string{{"oldText": "hello", "newText": "hi"}}})
	d := pisession.SessionDraft{Created: at, Cwd: "/home/u/proj", Entries: []pisession.Draft{
		{Type: "message", ID: "a1", Fields: user(`fix <script>alert("x")</script> & greet`)},
		{Type: "message", ID: "a2", ParentID: "a1", Fields: asst(pisession.Part{Type: "thinking", Thinking: "THINKING-TEXT"}, pisession.Part{Type: "text", Text: "Editing."},
			pisession.Part{Type: "toolCall", ID: "call_1", Name: "edit", Arguments: args})},
		{Type: "message", ID: "a3", ParentID: "a2", Fields: msg{pisession.Message{Role: "toolResult", ToolCallID: "call_1", ToolName: "edit", Content: pisession.PartsContent(pisession.Part{Type: "text", Text: "EDIT-RESULT"}), Timestamp: at.UnixMilli()}}},
		{Type: "message", ID: "b2", ParentID: "a1", Fields: asst(pisession.Part{Type: "text", Text: "LEFT-BEHIND-ANSWER"})},
		{Type: "message", ID: "a4", ParentID: "a3", Fields: asst(pisession.Part{Type: "text", Text: "SHOWN-ANSWER"})},
	}}
	path, err := pisession.WriteSession(context.Background(), t.TempDir(), d, pisession.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := pisession.Open(context.Background(), path, pisession.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var diffs = map[string][]FileDiff{"call_1": {{Path: "greet.txt", Status: "M", Added: 1, Removed: 1, Diff: "--- a/greet.txt\n+++ b/greet.txt\n@@ -1 +1 @@\n-hello\n+hi\n"}}}

func render(t *testing.T, s *pisession.Session, o Options) string {
	t.Helper()
	o.Diffs = diffs
	o.Now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	var b bytes.Buffer
	if err := Write(&b, s, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestHTMLShowsTheBranchEscapedWithDiffs: the page shows the branch shown,
// the call folded with its arguments, result and diff, and every text
// escaped; --all-branches adds the branch left behind.
func TestHTMLShowsTheBranchEscapedWithDiffs(t *testing.T) {
	s := branched(t)
	h := render(t, s, Options{Format: HTML})
	for _, w := range []string{"fix &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; greet", "<details><summary>Thinking</summary>", "THINKING-TEXT",
		"<summary>edit: greet.txt</summary>", "EDIT-RESULT", `<span class="del">-hello</span>`, `<span class="add">&#43;hi</span>`, "SHOWN-ANSWER", "M greet.txt +1 −1"} {
		if !strings.Contains(h, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if strings.Contains(h, "LEFT-BEHIND-ANSWER") || strings.Contains(h, "<script") {
		t.Errorf("the page shows another branch or unescaped markup:\n%s", h)
	}
	all := render(t, s, Options{Format: HTML, AllBranches: true})
	if !strings.Contains(all, "<h2>Branch 2 (from entry a1)</h2>") || !strings.Contains(all, "LEFT-BEHIND-ANSWER") {
		t.Errorf("--all-branches lacks the branch left behind")
	}
	if strings.Count(all, "EDIT-RESULT") != 1 {
		t.Errorf("--all-branches repeats the shared part of the branches")
	}
}

// TestMarkdownFencesHoldAnything: Markdown keeps the text, folds calls, and
// a result holding a fence cannot end the block it is in.
func TestMarkdownFencesHoldAnything(t *testing.T) {
	s := branched(t)
	md := render(t, s, Options{Format: Markdown})
	for _, w := range []string{"# fix <script>", "### User", "### Assistant (m1)", "<details><summary>edit: greet.txt</summary>", "```diff\n--- a/greet.txt", "EDIT-RESULT", "SHOWN-ANSWER"} {
		if !strings.Contains(md, w) {
			t.Errorf("the Markdown lacks %q:\n%s", w, md)
		}
	}
	if f := fence("a ```` b", ""); !strings.HasPrefix(f, "`````\n") {
		t.Errorf("fence around four backticks = %q, want five", f)
	}
}
