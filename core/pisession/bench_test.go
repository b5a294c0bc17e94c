package pisession

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// writeBenchSession writes a pi-shaped session of n entries: turns of a
// user prompt, an assistant reply with thinking and a tool call, the tool's
// result (a file of ~1.5 KB) and a final answer, with a model change now
// and then. About 0.8 KB per entry, like real coding sessions.
func writeBenchSession(tb testing.TB, dir string, n int, created time.Time) string {
	tb.Helper()
	code := strings.Repeat("func f(x int) int { return x * 2 } // some source line\n", 28)
	drafts := make([]Draft, 0, n)
	parent := ""
	t := created
	for i := 0; len(drafts) < n; i++ {
		t = t.Add(time.Second)
		var d Draft
		switch i % 5 {
		case 0:
			d = Draft{Type: TypeMessage, Fields: map[string]any{"message": Message{Role: RoleUser, Timestamp: t.UnixMilli(),
				Content: PartsContent(Part{Type: PartText, Text: fmt.Sprintf("Please look at file %d and fix the bug in it, then run the tests.", i)})}}}
		case 1:
			d = Draft{Type: TypeMessage, Fields: map[string]any{"message": Message{Role: RoleAssistant, Timestamp: t.UnixMilli(),
				API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: "toolUse",
				Usage: &Usage{Input: 1200, Output: 300, TotalTokens: 1500},
				Content: PartsContent(
					Part{Type: PartThinking, Thinking: "I should read the file first to see what the function does.", ThinkingSignature: strings.Repeat("c2ln", 40)},
					Part{Type: PartText, Text: "Let me read the file."},
					Part{Type: PartToolCall, ID: fmt.Sprintf("toolu_%08d", i), Name: "read", Arguments: []byte(fmt.Sprintf(`{"path":"src/file%d.go"}`, i))},
				)}}}
		case 2:
			d = Draft{Type: TypeMessage, Fields: map[string]any{"message": Message{Role: RoleToolResult, Timestamp: t.UnixMilli(),
				ToolCallID: fmt.Sprintf("toolu_%08d", i-1), ToolName: "read", Content: PartsContent(Part{Type: PartText, Text: code})}}}
		case 3:
			d = Draft{Type: TypeMessage, Fields: map[string]any{"message": Message{Role: RoleAssistant, Timestamp: t.UnixMilli(),
				API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: "stop",
				Usage:   &Usage{Input: 2800, Output: 200, TotalTokens: 3000},
				Content: PartsContent(Part{Type: PartText, Text: "The function doubles its input; the bug was an off-by-one in the loop. Fixed and the tests pass."})}}}
		case 4:
			if i%50 == 4 {
				d = Draft{Type: TypeModelChange, Fields: ModelChange{Provider: "anthropic", ModelID: "claude-sonnet-4-5"}}
			} else {
				d = Draft{Type: TypeCustom, Fields: Custom{CustomType: "guidance", Data: []byte(`{"delivered":["AGENTS.md"]}`)}}
			}
		}
		d.ID = fmt.Sprintf("%08x", len(drafts)+1)
		d.ParentID = parent
		d.Timestamp = t
		parent = d.ID
		drafts = append(drafts, d)
	}
	path, err := WriteSession(context.Background(), dir, SessionDraft{Created: created, Cwd: "/home/u/src/api", Entries: drafts}, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// Open a 20,000-entry session to its first frame: the tree, the leaf and
// the active branch. Target: ≤ 40 ms.
func BenchmarkOpen20000(b *testing.B) {
	path := writeBenchSession(b, b.TempDir(), 20000, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		s, err := Open(ctx, path, Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Path()) != 20000 || s.Leaf() == "" {
			b.Fatal("bad tree")
		}
		s.Close()
	}
}

// Append one entry to an open session. Target: ≤ 0.3 ms, without
// rereading the file.
func BenchmarkAppend(b *testing.B) {
	path := writeBenchSession(b, b.TempDir(), 2000, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ctx := context.Background()
	s, err := Open(ctx, path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m := userMsg("a prompt of ordinary length, asking for one more small change to the code")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.AppendMessage(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
}

func benchListDir(b *testing.B) string {
	dir := b.TempDir()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 1000 {
		writeBenchSession(b, dir, 20, base.Add(time.Duration(i)*time.Minute))
	}
	return dir
}

// List 1,000 session files with no index. Target: ≤ 300 ms.
func BenchmarkList1000Cold(b *testing.B) {
	dir := benchListDir(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		l, err := List(ctx, dir, nil, Options{})
		if err != nil || len(l) != 1000 {
			b.Fatal(len(l), err)
		}
	}
}

// List 1,000 session files whose summaries are in the index. Target:
// ≤ 30 ms.
func BenchmarkList1000Warm(b *testing.B) {
	dir := benchListDir(b)
	ctx := context.Background()
	idx := NewMemIndex()
	if _, err := List(ctx, dir, idx, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := List(ctx, dir, idx, Options{})
		if err != nil || len(l) != 1000 {
			b.Fatal(len(l), err)
		}
	}
}

// The benchmark's session is a real one: pi-shaped, no warnings.
func TestBenchSessionIsWellFormed(t *testing.T) {
	t.Parallel()
	path := writeBenchSession(t, t.TempDir(), 100, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := mustOpen(t, path)
	if s.Len() != 100 || len(s.Warnings()) != 0 || len(s.Path()) != 100 {
		t.Fatalf("%d entries, %q", s.Len(), s.Warnings())
	}
	c, err := s.Context()
	if err != nil || len(c.Messages) != 80 {
		t.Fatalf("context %d, %v", len(c.Messages), err)
	}
}

// The validating scan alone, over the lines of the 20,000-entry session in
// memory (no file reads, no tree).
func BenchmarkScanEntryLines(b *testing.B) {
	path := writeBenchSession(b, b.TempDir(), 20000, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	raw := make([][]byte, len(lines))
	for i, l := range lines {
		raw[i] = []byte(l)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range raw[1:] {
			if _, err := scanEntry(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// Open a file of 100,000 entries that all have one id (each a root). It
// used to relink the tree once per repeated id (18 s); now one pass.
func BenchmarkOpenSharedID100k(b *testing.B) {
	path := idsFile(b, 100_000, func(int) (string, string) { return "aaaaaaaa", "" })
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		s, err := Open(ctx, path, Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		if s.Len() != 100_000 {
			b.Fatal(s.Len())
		}
		s.Close()
	}
}

// Summarise a 100,000-entry session (80 MB) for a listing: streamed, so
// the allocations stay small whatever the size.
func BenchmarkSummarise100k(b *testing.B) {
	benchSummarise(b, writeBenchSession(b, b.TempDir(), 100_000, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), 100_000)
}

// The same listing of 100,000 entries sharing one id.
func BenchmarkSummariseSharedID100k(b *testing.B) {
	benchSummarise(b, idsFile(b, 100_000, func(int) (string, string) { return "aaaaaaaa", "" }), 100_000)
}

func benchSummarise(b *testing.B, path string, entries int) {
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if s := Summarise(ctx, path, Options{}); s.Entries != entries || s.Broken {
			b.Fatal(s)
		}
	}
}

// Build the model's context of a 20,000-entry branch, plain and with 1,000
// context_edit entries appended (pi 1.x trimming old tool results), and
// count its stats as pi's get_session_stats does.
func BenchmarkContext20000(b *testing.B) {
	for _, edits := range []int{0, 1000} {
		b.Run(fmt.Sprintf("edits=%d", edits), func(b *testing.B) {
			path := writeBenchSession(b, b.TempDir(), 20000, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			var lines strings.Builder
			parent := fmt.Sprintf("%08x", 20000)
			for i := range edits {
				id := fmt.Sprintf("e%07x", i)
				// Entry 5k+3 is a tool result (see writeBenchSession).
				fmt.Fprintf(&lines, `{"type":"context_edit","id":%q,"parentId":%q,"timestamp":"2026-01-02T00:00:00.000Z","targetId":"%08x","replacement":{"content":"(elided)"}}`+"\n", id, parent, 5*i+3)
				parent = id
			}
			appendRaw(b, path, lines.String())
			s := mustOpen(b, path)
			b.ReportAllocs()
			for b.Loop() {
				c, err := s.Context()
				if err != nil || len(c.Messages) < 15000 {
					b.Fatal("bad context", err)
				}
			}
		})
	}
	b.Run("stats", func(b *testing.B) {
		s := mustOpen(b, writeBenchSession(b, b.TempDir(), 20000, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
		b.ReportAllocs()
		for b.Loop() {
			if s.Stats().AssistantMessages == 0 {
				b.Fatal("no stats")
			}
		}
	})
}
