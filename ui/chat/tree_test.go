package chat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
)

// TestBranchNoticeSaysWhatToDo: continuing from a message of the user's
// puts it in the input and says to edit it; from an answer the input
// stays empty and the notice says the next message continues there.
func TestBranchNoticeSaysWhatToDo(t *testing.T) {
	m := testModel(t)
	ctx := context.Background()
	s := realSession(t, m)
	var path []sessions.Entry
	for _, c := range []struct {
		typ  string
		role provider.Role
		text string
	}{{sessions.TypeUser, provider.RoleUser, "first question"}, {sessions.TypeAssistant, provider.RoleAssistant, "first answer"},
		{sessions.TypeUser, provider.RoleUser, "second question"}, {sessions.TypeAssistant, provider.RoleAssistant, "second answer"}} {
		if _, err := s.Append(ctx, c.typ, entries.StoredMessage{Message: provider.Message{Role: c.role, Parts: []provider.Part{{Type: provider.PartText, Text: c.text}}}}); err != nil {
			t.Fatal(err)
		}
	}
	m.Update(m.Open(s.ID())())
	path = s.Path()
	if len(path) != 4 {
		t.Fatalf("the session has %d entries", len(path))
	}
	notice := func(cmd func() any) string {
		t.Helper()
		msg := cmd()
		said := m.Update(msg.(branchedMsg))
		// The view watches the session as branched from now on: that
		// watch ends here, so the command says its notice and returns.
		m.stopWatch()
		out := said()
		batch, _ := out.(tea.BatchMsg)
		for _, c := range batch {
			if c != nil {
				out = c()
			}
			if _, ok := out.(common.NoticeMsg); ok {
				break
			}
		}
		n, ok := out.(common.NoticeMsg)
		if !ok {
			t.Fatalf("branching says %T", out)
		}
		return n.Text
	}
	// From the first answer: nothing to edit.
	got := notice(func() any { return m.branchTo(path[1])() })
	if m.in.input.Value() != "" || got != "branched: the old branch is kept; your next message continues from this entry" {
		t.Errorf("from an answer: input %q, notice %q", m.in.input.Value(), got)
	}
	// From the second question: it is back in the input to edit.
	got = notice(func() any { return m.branchTo(path[2])() })
	if m.in.input.Value() != "second question" || got != "branched: the old branch is kept; edit the message and press enter" {
		t.Errorf("from a question: input %q, notice %q", m.in.input.Value(), got)
	}
}

// TestModelMenuMarksTheCurrentModel: /model marks the model the next
// prompt uses: the default until the session picks one, then its pick.
func TestModelMenuMarksTheCurrentModel(t *testing.T) {
	m := testModel(t)
	dir := m.d.Host.Places.AgentDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("models.json", `{"providers":{"fake":{"baseUrl":"http://127.0.0.1:9","api":"openai-completions","apiKey":"k","models":[{"id":"m1"},{"id":"m2"}]}}}`)
	write("settings.json", `{"defaultProvider":"fake","defaultModel":"m1"}`)
	menu := func() string {
		t.Helper()
		m.Update(m.tune.picker()())
		for _, op := range m.d.UI.Nav.Drain() {
			if op.Push != nil {
				return op.Push.View(80, 20)
			}
		}
		t.Fatal("/model opened no menu")
		return ""
	}
	if v := menu(); !strings.Contains(v, "fake/m1  (current)") || strings.Contains(v, "m2  (current)") {
		t.Errorf("with the default model:\n%s", v)
	}
	m.tune.model = "fake/m2"
	if v := menu(); !strings.Contains(v, "fake/m2  (current)") || strings.Contains(v, "m1  (current)") {
		t.Errorf("with the session's pick:\n%s", v)
	}
}

// TestFilesFromAnEntryOnlyPiShows: continuing from an entry pi-tui
// keeps no record of (a branch summary, an extension's entry) counts the
// agent's file changes from the nearest entry above it that it does,
// that entry's own changes kept; with none above, from the first one
// after it, its changes included; from a message of the user's, its own
// changes go too.
func TestFilesFromAnEntryOnlyPiShows(t *testing.T) {
	te := func(id, parent, typ string, piOnly bool) sessions.TreeEntry {
		return sessions.TreeEntry{Entry: sessions.NewEntry(id, parent, typ, nil), Parent: parent, PiOnly: piOnly}
	}
	tree := []sessions.TreeEntry{
		te("x0", "", "custom", true),
		te("u1", "x0", sessions.TypeUser, false),
		te("a1", "u1", sessions.TypeAssistant, false),
		te("r1", "a1", sessions.TypeToolResult, false),
		te("b1", "r1", "branch_summary", true),
		te("n1", "b1", "custom_message", true),
	}
	for _, c := range []struct {
		at, files string
		own       bool
	}{
		{"n1", "r1", false},
		{"b1", "r1", false},
		{"r1", "r1", false},
		{"u1", "u1", true},
		{"x0", "u1", true},
	} {
		var at sessions.TreeEntry
		for _, e := range tree {
			if e.ID == c.at {
				at = e
			}
		}
		if files, own := filesFrom(tree, at); files != c.files || own != c.own {
			t.Errorf("from %s: files from %q (own %v), want %q (own %v)", c.at, files, own, c.files, c.own)
		}
	}
	if files, _ := filesFrom(tree[:1], tree[0]); files != "" {
		t.Errorf("with no entry pi-tui knows, files from %q", files)
	}
}

// TestBranchHoldsWhenTheViewRereads: after /tree continues from an
// earlier entry, reading the session again (as another writer's appends
// make the view do) shows the new branch, not the old one: the view had
// opened the session as a reading of its own, which does not follow a
// branch another reading makes.
func TestBranchHoldsWhenTheViewRereads(t *testing.T) {
	m := testModel(t)
	m.SetSize(100, 30)
	ctx := context.Background()
	s := realSession(t, m)
	for _, c := range []struct {
		typ  string
		role provider.Role
		text string
	}{{sessions.TypeUser, provider.RoleUser, "first question"}, {sessions.TypeAssistant, provider.RoleAssistant, "first answer"},
		{sessions.TypeUser, provider.RoleUser, "second question"}, {sessions.TypeAssistant, provider.RoleAssistant, "second answer"}} {
		if _, err := s.Append(ctx, c.typ, entries.StoredMessage{Message: provider.Message{Role: c.role, Parts: []provider.Part{{Type: provider.PartText, Text: c.text}}}}); err != nil {
			t.Fatal(err)
		}
	}
	m.Update(m.Open(s.ID())())
	path := s.Path()
	m.Update(m.branchTo(path[1])())
	if v := m.View(); strings.Contains(v, "second answer") || !strings.Contains(v, "first answer") {
		t.Fatalf("branched:\n%s", v)
	}
	m.Update(m.reread()())
	if v := m.View(); strings.Contains(v, "second answer") || !strings.Contains(v, "first answer") {
		t.Errorf("read again, the view shows the old branch:\n%s", v)
	}
}
