package pisession

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every file real pi wrote opens without a warning, keeps every line's
// bytes, and writes back byte for byte. The rpc_stdout captures in the same
// folder are pi's stdout, not sessions, and are refused as such.
func TestReferenceFilesRoundTripByteIdentical(t *testing.T) {
	t.Parallel()
	ref := referenceDir(t)
	files, err := filepath.Glob(filepath.Join(ref, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no reference files in %s (%v)", ref, err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Open(ctxT(t), path, Options{ReadOnly: true})
			if strings.Contains(path, "rpc_stdout") {
				if !errors.Is(err, ErrNotSession) {
					t.Fatalf("pi's rpc stdout is not a session; Open = %v, want ErrNotSession", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if w := s.Warnings(); len(w) > 0 {
				t.Errorf("warnings on a file pi wrote: %q", w)
			}
			if _, err := s.SetName(ctxT(t), "x"); !errors.Is(err, ErrReadOnly) {
				t.Fatalf("a session opened read-only took a write: %v", err)
			}
			var out bytes.Buffer
			out.Write(s.Header().Raw)
			out.WriteByte('\n')
			for _, e := range s.Entries() {
				out.Write(e.Raw)
				out.WriteByte('\n')
			}
			if !bytes.Equal(out.Bytes(), data) {
				t.Errorf("re-serialised file differs from pi's:\n%s\nwant\n%s", out.Bytes(), data)
			}
			lines := bytes.Count(data, []byte("\n"))
			if got := s.Len() + 1; got != lines {
				t.Errorf("entries+header = %d, file has %d lines", got, lines)
			}
			last := s.Entries()[s.Len()-1]
			if s.Leaf() != last.ID {
				t.Errorf("leaf = %s, want the last entry %s (pi's rule)", s.Leaf(), last.ID)
			}
			for _, e := range s.Entries() {
				if e.Type == TypeMessage {
					if _, err := e.Message(); err != nil {
						t.Errorf("message %s does not decode: %v", e.ID, err)
					}
				}
			}
		})
	}
}

// refSession opens a copy of a reference file: the tests run as root in CI,
// where missing write bits would not keep a write off the shared original.
func refSession(t *testing.T, name string) *Session {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(referenceDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return mustOpen(t, path)
}

// The print-mode runs: one prompt, a tool call and its result; the context
// is the four messages, the model the one the assistant names.
func TestReferencePrintToolCallContext(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"pi073_print_toolcall.jsonl", "pi085_print_toolcall.jsonl"} {
		t.Run(name, func(t *testing.T) {
			s := refSession(t, name)
			c, err := s.Context()
			if err != nil {
				t.Fatal(err)
			}
			want := []string{
				"user:read notes.txt",
				"assistant:Let me read it.|toolCall read",
				"toolResult:hello from notes.txt\n",
				"assistant:The file says hello.",
			}
			if got := contextTexts(t, c); !reflect.DeepEqual(got, want) {
				t.Errorf("context = %q\nwant %q", got, want)
			}
			if want := (Settings{Provider: "fake", ModelID: "fake-model", ThinkingLevel: "off"}); c.Settings != want {
				t.Errorf("settings = %+v, want %+v", c.Settings, want)
			}
			// Context messages of the model's roles are the stored bytes.
			path := s.Path()
			if got, want := string(c.Messages[1].Raw), string(findMember(path[3].Raw, "message")); got != want {
				t.Errorf("assistant message re-encoded:\n%s\nwant stored\n%s", got, want)
			}
			m, err := path[3].Message()
			if err != nil {
				t.Fatal(err)
			}
			if m.Usage == nil || m.Usage.TotalTokens != 15 || m.StopReason != "toolUse" || m.Content.Parts[1].ID == "" {
				t.Errorf("assistant message decoded as %+v", m)
			}
			if strings.HasPrefix(name, "pi085") && string(m.ExtraMember("rawStopReason")) != `"tool_calls"` {
				t.Errorf("pi 0.85's rawStopReason not kept: %q", m.Extra)
			}
		})
	}
}

// After a compaction, the context is the summary, then the kept entries
// from firstKeptEntryId, then what came after; name, model and thinking
// level are the latest ones.
func TestReferenceCompactionContext(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"pi073_rpc_compaction_name_model_thinking.jsonl", "pi085_rpc_compaction_name_model_thinking.jsonl"} {
		t.Run(name, func(t *testing.T) {
			s := refSession(t, name)
			c, err := s.Context()
			if err != nil {
				t.Fatal(err)
			}
			var comp Compaction
			for _, e := range s.Path() {
				if e.Type == TypeCompaction {
					if comp, err = e.Compaction(); err != nil {
						t.Fatal(err)
					}
				}
			}
			want := []string{
				"user:The conversation history before this point was compacted into the following summary:\n\n<summary>\n" + comp.Summary + "\n</summary>",
				"assistant:The file says hello.", // firstKeptEntryId
				"user:second prompt",
				"assistant:Second answer.",
			}
			if got := contextTexts(t, c); !reflect.DeepEqual(got, want) {
				t.Errorf("context = %q\nwant %q", got, want)
			}
			if want := (Settings{Provider: "fake", ModelID: "fake-reasoner", ThinkingLevel: "high"}); c.Settings != want {
				t.Errorf("settings = %+v, want %+v", c.Settings, want)
			}
			if s.Name() != "Demo session" {
				t.Errorf("name = %q", s.Name())
			}
			if c.Messages[0].EntryType != TypeCompaction {
				t.Errorf("first context message comes from a %s entry", c.Messages[0].EntryType)
			}
		})
	}
}

// The extension run: a custom entry, a label and a custom_message on one
// branch, then a branch_summary that went back to the assistant's tool
// call. The active branch is the summary's; the other branch is still
// reachable and its custom_message reaches the model when moved to.
func TestReferenceBranchSummaryAndCustomEntries(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name            string
		first, toolCall string // the user message and the tool-calling reply
		summary, tip    string
		tipOK           bool
		customMsg       string
	}{
		{"pi073_ext_custom_label_custommsg_branchsummary.jsonl", "e578d275", "a20c3c7d", "2a4b822c", "", false, "fa83e2e2"},
		{"pi085_ext_custom_label_custommsg_branchsummary.jsonl", "e539805f", "adcb5503", "fecd7f7c", "540901a0", true, "540901a0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := refSession(t, tc.name)
			c, err := s.Context()
			if err != nil {
				t.Fatal(err)
			}
			bs, _ := s.Get(tc.summary)
			b, err := bs.BranchSummary()
			if err != nil {
				t.Fatal(err)
			}
			want := []string{
				"user:read notes.txt",
				"assistant:Let me read it.|toolCall read",
				"user:" + branchPrefix + b.Summary + branchSuffix,
				"user:continue after branch",
				"assistant:Answer after branching.",
			}
			if got := contextTexts(t, c); !reflect.DeepEqual(got, want) {
				t.Errorf("context = %q\nwant %q", got, want)
			}
			if tip, ok := b.LeftBranchTip(bs); ok != tc.tipOK || tip != tc.tip {
				t.Errorf("LeftBranchTip = %q, %v; want %q, %v", tip, ok, tc.tip, tc.tipOK)
			}
			if got := s.Labels(); !reflect.DeepEqual(got, map[string]string{tc.first: "checkpoint-1"}) {
				t.Errorf("labels = %v", got)
			}
			kids := s.Children(tc.toolCall)
			if len(kids) != 2 {
				t.Fatalf("the tool call has %d children (%s), want 2 branches", len(kids), ids(kids))
			}
			// Move to the abandoned branch's tip: the custom_message is sent as
			// a user message; the custom and label entries are not.
			if _, err := s.Branch(ctxT(t), tc.customMsg); err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, e := range s.Path() {
				types = append(types, e.Type)
			}
			if got := strings.Join(types, " "); got != "model_change thinking_level_change message message message message custom label custom_message" {
				t.Errorf("abandoned branch = %s", got)
			}
			c, err = s.Context()
			if err != nil {
				t.Fatal(err)
			}
			want = []string{
				"user:read notes.txt",
				"assistant:Let me read it.|toolCall read",
				"toolResult:hello from notes.txt\n",
				"assistant:The file says hello.",
				"user:Injected context from extension",
			}
			if got := contextTexts(t, c); !reflect.DeepEqual(got, want) {
				t.Errorf("context on the other branch = %q\nwant %q", got, want)
			}
		})
	}
}
