package chat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/agent"
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
	var entries []sessions.Entry
	for _, c := range []struct {
		typ  string
		role provider.Role
		text string
	}{{sessions.TypeUser, provider.RoleUser, "first question"}, {sessions.TypeAssistant, provider.RoleAssistant, "first answer"},
		{sessions.TypeUser, provider.RoleUser, "second question"}, {sessions.TypeAssistant, provider.RoleAssistant, "second answer"}} {
		if _, err := s.Append(ctx, c.typ, agent.StoredMessage{Message: provider.Message{Role: c.role, Parts: []provider.Part{{Type: provider.PartText, Text: c.text}}}}); err != nil {
			t.Fatal(err)
		}
	}
	m.Update(m.Open(s.ID())())
	entries = s.Path()
	if len(entries) != 4 {
		t.Fatalf("the session has %d entries", len(entries))
	}
	notice := func(cmd func() any) string {
		t.Helper()
		msg := cmd()
		n, ok := m.Update(msg.(branchedMsg))().(common.NoticeMsg)
		if !ok {
			t.Fatalf("branching says %T", msg)
		}
		return n.Text
	}
	// From the first answer: nothing to edit.
	got := notice(func() any { return m.branchTo(entries[1])() })
	if m.input.Value() != "" || got != "branched: the old branch is kept; your next message continues from this entry" {
		t.Errorf("from an answer: input %q, notice %q", m.input.Value(), got)
	}
	// From the second question: it is back in the input to edit.
	got = notice(func() any { return m.branchTo(entries[2])() })
	if m.input.Value() != "second question" || got != "branched: the old branch is kept; edit the message and press enter" {
		t.Errorf("from a question: input %q, notice %q", m.input.Value(), got)
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
		m.Update(m.modelPicker()())
		for _, op := range m.d.UI.Nav.Drain() {
			if op.Push != nil {
				return op.Push.View(80, 20)
			}
		}
		t.Fatal("/model opened no menu")
		return ""
	}
	if v := menu(); !strings.Contains(v, "fake/m1  ← current") || strings.Contains(v, "m2  ← current") {
		t.Errorf("with the default model:\n%s", v)
	}
	m.model = "fake/m2"
	if v := menu(); !strings.Contains(v, "fake/m2  ← current") || strings.Contains(v, "m1  ← current") {
		t.Errorf("with the session's pick:\n%s", v)
	}
}
