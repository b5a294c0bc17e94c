package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkOpen20000 times Open + Context of a session of 20,000 entries:
// users, assistants, tool results, custom entries, model changes, with
// branches and compactions.
func BenchmarkOpen20000(b *testing.B) {
	st, _ := setup(b)
	ctx := context.Background()
	m := NewManager(st)
	s, err := m.Create(ctx, "p1", "big")
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("lorem ipsum dolor sit amet ", 8)
	var kept string
	for i := range 20000 {
		var typ string
		var payload any
		switch {
		case i%5000 == 4999:
			typ, payload = TypeCompaction, Compaction{Summary: text, FirstKeptEntryID: kept, TokensBefore: 100000}
		case i%100 == 99:
			typ, payload = TypeCustom, map[string]any{"customType": "pi-agent-guidance:subdirectory-context", "files": []string{"a/AGENTS.md"}}
		case i%1000 == 500:
			typ, payload = TypeModelChange, map[string]string{"provider": "anthropic", "model": "claude"}
		case i%3 == 0:
			typ, payload = TypeUser, map[string]string{"text": text}
		case i%3 == 1:
			typ, payload = TypeAssistant, map[string]any{"text": text, "toolCalls": []map[string]string{{"id": fmt.Sprint(i), "name": "read", "path": "a/b.go"}}}
		default:
			typ, payload = TypeToolResult, map[string]any{"toolCallId": fmt.Sprint(i - 1), "content": text + text}
		}
		e := mustAppend(b, s, typ, payload)
		if i%5000 == 4000 {
			kept = e.ID
		}
		if i%3000 == 2999 { // a branch: go back 20 entries and continue from there
			p := s.Path()
			if err := s.Branch(ctx, p[len(p)-20].ID); err != nil {
				b.Fatal(err)
			}
		}
	}
	want := len(s.Context())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		o, err := m.Open(ctx, s.ID())
		if err != nil {
			b.Fatal(err)
		}
		if n := len(o.Context()); n != want {
			b.Fatalf("context has %d entries, want %d", n, want)
		}
	}
}
