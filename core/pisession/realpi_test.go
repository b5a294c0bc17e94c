package pisession

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/realpi"
)

// findPi returns the command that runs the real pi, or skips the test.
func findPi(t *testing.T) []string {
	t.Helper()
	pi, skip := realpi.Command()
	if pi == nil {
		t.Skip(skip)
	}
	return pi
}

// piRPC runs pi in rpc mode on a session file, sends cmds and returns the
// response to each, in order.
func piRPC(t *testing.T, pi []string, cwd, session string, cmds ...string) []json.RawMessage {
	t.Helper()
	return realpi.RPC(t, pi, cwd, filepath.Join(t.TempDir(), "agent"), []string{"--session", session}, cmds...)
}

// A session pi-tui wrote is read by the real pi as pi-tui reads it: the
// same messages on the active branch (after a compaction and a branch
// move), the same model; and a name pi sets reaches pi-tui.
func TestRealPiReadsWhatPiTuiWrites(t *testing.T) {
	t.Parallel()
	pi := findPi(t)
	ctx := ctxT(t)
	proj := t.TempDir()
	s, err := Create(ctx, filepath.Join(t.TempDir(), "sessions"), NewSession{Cwd: proj}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	must(t)(s.AppendModelChange(ctx, "openai", "gpt-4o"))
	must(t)(s.AppendThinkingLevelChange(ctx, "low"))
	must(t)(s.AppendMessage(ctx, userMsg("u1")))
	a1 := must(t)(s.AppendMessage(ctx, assistantMsg("a1")))
	u2 := must(t)(s.AppendMessage(ctx, userMsg("u2")))
	must(t)(s.AppendMessage(ctx, assistantMsg("a2")))
	must(t)(s.AppendCompaction(ctx, Compaction{Summary: "so far", FirstKeptEntryID: u2.ID, TokensBefore: 9}))
	must(t)(s.AppendCustom(ctx, "pi-tui.guidance", map[string]any{"files": []string{"AGENTS.md"}}))
	must(t)(s.AppendCustomMessage(ctx, CustomMessage{CustomType: "note", Content: TextContent("injected"), Display: true}))
	must(t)(s.AppendMessage(ctx, userMsg("u3")))
	must(t)(s.AppendMessage(ctx, assistantMsg("a3")))

	// pi's messages on the active branch, compared with pi-tui's context.
	check := func(label string) {
		t.Helper()
		res := piRPC(t, pi, proj, s.File(), `{"type":"get_messages"}`, `{"type":"get_state"}`)
		var got struct {
			Messages []struct {
				Role    string  `json:"role"`
				Summary string  `json:"summary"`
				Content Content `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(res[0], &got); err != nil {
			t.Fatal(err)
		}
		var piTexts []string
		for _, m := range got.Messages {
			switch m.Role {
			case RoleCompactionSummary:
				piTexts = append(piTexts, "user:"+compactionPrefix+m.Summary+compactionSuffix)
			case RoleBranchSummary:
				piTexts = append(piTexts, "user:"+branchPrefix+m.Summary+branchSuffix)
			case RoleCustom:
				piTexts = append(piTexts, "user:"+m.Content.PlainText("|"))
			default:
				piTexts = append(piTexts, m.Role+":"+m.Content.PlainText("|"))
			}
		}
		c, err := s.Context()
		if err != nil {
			t.Fatal(err)
		}
		ours := contextTexts(t, c)
		if strings.Join(piTexts, "\n") != strings.Join(ours, "\n") {
			t.Errorf("%s: pi sees\n%q\npi-tui builds\n%q", label, piTexts, ours)
		}
		var st struct {
			SessionID     string `json:"sessionId"`
			ThinkingLevel string `json:"thinkingLevel"`
		}
		json.Unmarshal(res[1], &st)
		if st.SessionID != s.ID() {
			t.Errorf("%s: pi opened session %q, want %q", label, st.SessionID, s.ID())
		}
	}
	check("after a compaction")

	if _, err := s.Branch(ctx, a1.ID); err != nil {
		t.Fatal(err)
	}
	check("after moving to an earlier entry")

	// pi writes, pi-tui reads: pi names the session.
	piRPC(t, pi, proj, s.File(), `{"type":"set_session_name","name":"Named by pi"}`)
	arrived, err := s.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(arrived) != 1 || arrived[0].Type != TypeSessionInfo || s.Name() != "Named by pi" {
		t.Errorf("after pi named it: arrived %d (%s), name %q", len(arrived), ids(arrived), s.Name())
	}
	if s.Leaf() == a1.ID {
		t.Log("pi appended under the marker, continuing the branch pi-tui chose")
	}
	if p := s.Path(); len(p) < 4 || p[3].ID != a1.ID {
		t.Errorf("active branch after pi's write: %s", ids(p))
	}
}
