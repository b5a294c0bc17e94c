package chat

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
	"github.com/pi-tui/pi-tui/ui/sessionlist"
)

func benchDeps(b testing.TB) (Deps, *host.Host) {
	h, _ := uitest.Host(b)
	ui := common.NewUI(common.NewStyles(lipgloss.NewRenderer(io.Discard)))
	return hostDeps(b.Context(), h, ui), h
}

// hostDeps is the chat's deps over host h, wired as the Session tab
// wires them.
func hostDeps(ctx context.Context, h *host.Host, ui *common.UI) Deps {
	rts := h.Runtimes
	return Deps{Ctx: ctx, Host: h, Events: h.Events, Runtime: rts, Sessions: rts.Sessions(), Catalogue: rts.Catalogue(), Plans: rts.Plans(),
		Store: h.Sessions, Worktrees: h.Worktrees, Review: h.Review, UI: ui, Markdown: func(s string, w int) (string, error) { return s, nil }}
}

// listOf is the session list beside a chat of deps d, as the Session tab
// builds it.
func listOf(d Deps) *sessionlist.Model {
	return sessionlist.New(sessionlist.Deps{Ctx: d.Ctx, Store: d.Host.Sessions, Sessions: d.Host.Runtimes.Sessions(), Worktrees: d.Host.Worktrees, UI: d.UI}, sessionlist.Actions{})
}

// newChat is a chat of project "p" beside its session list, as the
// Session tab builds them.
func newChat(tb testing.TB, d Deps) *Model {
	m := New(d, Tab{List: listOf(d), Show: func(bool) {}})
	tb.Cleanup(m.Close)
	m.SetProject(registry.Project{Name: "p"})
	return m
}

// fill2000 puts 2,000 messages in the transcript.
func fill2000(m *Model) {
	for i := range 2000 {
		text := fmt.Sprintf("message %d: %s", i, strings.Repeat("words ", 30))
		if i%2 == 1 {
			m.tr.EndAnswer(text, false)
		} else {
			m.tr.User(text)
		}
	}
}

// longChat is an open session of 2,000 messages at 120×40.
func longChat(b *testing.B) *Model {
	d, _ := benchDeps(b)
	m := newChat(b, d)
	m.sid = "s1"
	m.SetSize(120, 40)
	fill2000(m)
	return m
}

// BenchmarkStreamedToken: one token arriving while 2,000 messages are in
// the transcript, update and view. Target: ≤ 4 ms/op.
func BenchmarkStreamedToken(b *testing.B) {
	m := longChat(b)
	_ = m.View()
	ev := eventsMsg{events.TextDelta{SessionID: "s1", Text: "token "}}
	b.ReportAllocs()
	for b.Loop() {
		m.Update(ev)
		_ = m.View()
	}
}

// BenchmarkTokenToSecondClient: one session open in two programs over one
// runtime manager, 2,000 messages on screen in each; a token is published
// to the core's broker and each program takes it from its subscription,
// applies it and draws, one after the other. The op is the whole path to
// the second program's frame; "ns-after-first" is how long after the
// first program's frame the second's was done (target ≤ 5 ms).
func BenchmarkTokenToSecondClient(b *testing.B) {
	d, _ := benchDeps(b)
	var ms []*Model
	for range 2 {
		m := newChat(b, d)
		m.sid = "s1"
		m.br.show("s1")
		m.SetSize(120, 40)
		fill2000(m)
		_ = m.View()
		ms = append(ms, m)
	}
	ev := events.TextDelta{SessionID: "s1", Text: "token "}
	var after time.Duration
	b.ReportAllocs()
	for b.Loop() {
		d.Events.Publish(ev)
		var first time.Time
		for i, m := range ms {
			m.Update(m.br.wait()())
			_ = m.View()
			if i == 0 {
				first = time.Now()
			}
		}
		after += time.Since(first)
	}
	b.ReportMetric(float64(after.Nanoseconds())/float64(b.N), "ns-after-first")
}

// BenchmarkOpen20000: open a session of 20,000 entries and draw the first
// frame. Target (issue 13): ≤ 40 ms/op.
func BenchmarkOpen20000(b *testing.B) {
	d, h := benchDeps(b)
	ctx := context.Background()
	root := b.TempDir()
	p, _, err := h.Projects.Add(ctx, root, "p", true)
	if err != nil {
		b.Fatal(err)
	}
	s, err := d.Host.Sessions.Create(ctx, p.ID, "big")
	if err != nil {
		b.Fatal(err)
	}
	for i := range 20000 {
		typ, msg := "user", provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: fmt.Sprintf("question %d", i)}}}
		if i%2 == 1 {
			typ, msg = "assistant", provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{{Type: provider.PartText, Text: fmt.Sprintf("answer %d with some words", i)}}}
		}
		if _, err := s.Append(ctx, typ, entries.StoredMessage{Message: msg}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		// Each chat's subscription ends with its own context, as each
		// program's does.
		pctx, end := context.WithCancel(ctx)
		d.Ctx = pctx
		m := New(d, Tab{List: listOf(d), Show: func(bool) {}})
		m.SetProject(p)
		m.SetSize(120, 40)
		msg := m.Open(s.ID())()
		m.Update(msg)
		if out := m.View(); !strings.Contains(out, "answer 19999") {
			b.Fatal("the first frame does not show the end of the session")
		}
		m.Close()
		end()
	}
}
