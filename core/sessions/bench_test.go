package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/store"
)

// BenchmarkOpen20000 times opening a 20,000-entry session file and building
// both its branch (Path, what the view draws from) and the model's Context
// (what the first prompt needs). The first frame alone is ui/chat's
// BenchmarkOpen20000.
func BenchmarkOpen20000(b *testing.B) {
	e := setup(b, b.TempDir())
	ctx := context.Background()
	s, _ := e.m.Create(ctx, "p1", "big")
	body := strings.Repeat("lorem ipsum dolor sit amet ", 8)
	for i := range 20000 {
		switch i % 4 {
		case 0:
			mustAppend(b, s, TypeUser, msg(provider.RoleUser, text(body)))
		case 1:
			a := msg(provider.RoleAssistant, text(body), provider.Part{Type: provider.PartToolCall, ToolCallID: fmt.Sprint(i), ToolName: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)})
			a.StopReason, a.Model = provider.StopToolUse, "anthropic/claude"
			mustAppend(b, s, TypeAssistant, a)
		case 2:
			r := msg(provider.RoleTool, provider.Part{Type: provider.PartToolResult, ToolCallID: fmt.Sprint(i - 1), ToolName: "read", Text: body})
			r.Path, r.ToolMs = "a.go", 1
			mustAppend(b, s, TypeToolResult, r)
		default:
			a := msg(provider.RoleAssistant, text(body))
			a.StopReason = provider.StopEnd
			mustAppend(b, s, TypeAssistant, a)
		}
	}
	s.Close()
	b.ResetTimer()
	for b.Loop() {
		o, err := NewManager(e.st, Config{AgentDir: e.agent}).Open(ctx, s.ID())
		if err != nil {
			b.Fatal(err)
		}
		if len(o.Path()) == 0 || len(o.Context()) == 0 {
			b.Fatal("empty")
		}
		o.Close()
	}
}

// BenchmarkAppend times one message append to an existing file.
func BenchmarkAppend(b *testing.B) {
	e := setup(b, b.TempDir())
	ctx := context.Background()
	s, _ := e.m.Create(ctx, "p1", "")
	defer s.Close()
	m := msg(provider.RoleUser, text("hello"))
	mustAppend(b, s, TypeUser, m)
	for b.Loop() {
		mustAppend(b, s, TypeUser, m)
	}
}

// BenchmarkLookup10000 times finding one session by its full id, and by
// a prefix, among 10,000 session files of 50 projects, in a fresh
// Manager: the folder listings every Open now reads, and the matching
// file's first line.
func BenchmarkLookup10000(b *testing.B) {
	e := setup(b, b.TempDir())
	ctx := context.Background()
	var last string
	for p := range 50 {
		root := e.root
		if p > 0 {
			root = b.TempDir()
			if _, _, err := e.st.InsertProject(ctx, store.ProjectRow{ID: fmt.Sprint("p", p+1), Name: fmt.Sprint("project ", p+1), Root: root, CreatedAt: 1}); err != nil {
				b.Fatal(err)
			}
		}
		dir := pisession.SessionsDir(e.agent, root)
		for i := range 200 {
			last = fmt.Sprintf("%08x-%04x-7000-8000-000000000000", p, i)
			writeSession(b, dir, root, last, "")
		}
	}
	for _, id := range []string{last, last[:13]} {
		b.Run(fmt.Sprint(len(id)), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewManager(e.st, Config{AgentDir: e.agent}).Lookup(ctx, id, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
