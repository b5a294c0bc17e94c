package pisession

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/realpi"
)

// find16 returns the command that runs a real pi 1.x, or skips the test.
func find16(t *testing.T) []string {
	t.Helper()
	pi, skip := realpi.Command16()
	if pi == nil {
		t.Skip(skip)
	}
	return pi
}

// piContextTexts asks the real pi for the messages it would send for the
// session file (rpc get_messages: its agent's context, built from the
// branch) and renders them as contextTexts renders pi-tui's, after pi's
// convertToLlm: system messages are its prompt and are left out; summaries
// and custom messages become user messages.
func piContextTexts(t *testing.T, pi []string, cwd, file string) []string {
	t.Helper()
	res := realpi.RPC(t, pi, cwd, filepath.Join(t.TempDir(), "agent"), []string{"--session", file}, `{"type":"get_messages"}`)
	var got struct {
		Messages []struct {
			Role    string          `json:"role"`
			Summary string          `json:"summary"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(res[0], &got); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range got.Messages {
		var line string
		switch m.Role {
		case RoleSystem:
			continue
		case RoleCompactionSummary:
			line = "user:" + CompactionSummaryText(m.Summary)
		case RoleBranchSummary:
			line = "user:" + branchPrefix + m.Summary + branchSuffix
		default:
			var c Content
			if len(m.Content) > 0 {
				if err := json.Unmarshal(m.Content, &c); err != nil {
					t.Fatalf("pi's %s content %s: %v", m.Role, m.Content, err)
				}
			}
			role := m.Role
			if role == RoleCustom {
				role = RoleUser
				if c.IsText {
					c = PartsContent(Part{Type: PartText, Text: c.Text})
				}
			}
			raw, err := json.Marshal(Message{Role: role, Content: c})
			if err != nil {
				t.Fatal(err)
			}
			line = contextTexts(t, Context{Messages: []ContextMessage{{Raw: raw}}})[0]
		}
		out = append(out, line)
	}
	return out
}

// inCwd copies a session file's lines into dir with the header's cwd set
// to dir (pi refuses to open a session whose folder is gone).
func inCwd(t *testing.T, src, dir string) string {
	t.Helper()
	lines := strings.SplitN(readFile(t, src), "\n", 2)
	var h map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	h["cwd"] = dir
	hb, _ := json.Marshal(h)
	p := filepath.Join(dir, filepath.Base(src))
	writeFile(t, p, string(hb)+"\n"+lines[1])
	return p
}

// The real pi 1.6 and pi-tui build the same conversation for every
// hand-written branch of TestContextAsPi16: edits, system and usage
// entries, compactions with checkpoints, several roots, full UUIDs.
func TestRealPi16BuildsTheSameContext(t *testing.T) {
	pi := find16(t)
	for _, c := range pi16Cases() {
		t.Run(c.name, func(t *testing.T) {
			if c.piFails {
				t.Skip("pi 1.6 cannot load this branch (it throws); pi-tui's rule is its own")
			}
			dir := t.TempDir()
			file := inCwd(t, branchFile(t, c.lines...), dir)
			s := mustOpen(t, file)
			ours, err := s.Context()
			if err != nil {
				t.Fatal(err)
			}
			got := piContextTexts(t, pi, dir, file)
			if want := contextTexts(t, ours); !reflect.DeepEqual(got, want) {
				t.Errorf("pi 1.6 sends\n%q\npi-tui builds\n%q", got, want)
			}
		})
	}
}

// The files pi 1.6 wrote (in testdata, from shared/pi-reference) give the
// context pi-tui builds, and the real pi agrees where it is installed.
func TestPi16FilesContext(t *testing.T) {
	cases := map[string][]string{
		"pi160_print_toolcall_then_pitui_then_pi.jsonl": {"user:read notes", "assistant:toolCall read", "toolResult:hello file\n",
			"assistant:pi read the file: hello file", "user:and now?", "assistant:pi-tui continues", "user:third", "assistant:pi again"},
		"pi160_rpc_name_thinking_system_sections.jsonl": {"user:read the notes", "assistant:toolCall read", "toolResult:hello\n",
			"assistant:first answer", "user:and now", "assistant:Summary: the user read notes.txt."},
	}
	pi, _ := realpi.Command16()
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join("testdata", name)
			before, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			s := mustOpen(t, src)
			c, err := s.Context()
			if err != nil {
				t.Fatal(err)
			}
			if got := contextTexts(t, c); !reflect.DeepEqual(got, want) {
				t.Errorf("context\n%q\nwant\n%q", got, want)
			}
			if after, _ := os.ReadFile(src); string(after) != string(before) {
				t.Error("opening the file changed it")
			}
			if pi == nil {
				return
			}
			dir := t.TempDir()
			if got := piContextTexts(t, pi, dir, inCwd(t, src, dir)); !reflect.DeepEqual(got, want) {
				t.Errorf("pi 1.6 sends\n%q\nwant\n%q", got, want)
			}
		})
	}
}
