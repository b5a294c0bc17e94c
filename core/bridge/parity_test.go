package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/store"
)

// The delivery parity test runs one scripted sequence through both
// engines' hosts and compares what the model is given with each file
// tool's result: the built-in engine (core/agent over its own session,
// with a fake model that issues the calls) and the pi engine's host
// (Decisions driven with the same calls, over a session file written as
// pi 1.6 writes it). The issue asks the host to decide exactly as the
// built-in engine does; a difference here is a bug in one of them.

// parityStep is one thing the user does: a prompt whose model makes the
// given turns of tool calls (each turn one model message) and then
// answers, a manual compaction, a /tree move back to the leaf after an
// earlier prompt, or a resume in a new process.
type parityStep struct {
	turns   [][]parityCall
	compact bool
	tree    int // /tree: back to the leaf after prompt number tree-1 (1-based; 0: no move)
	resume  bool
}

// parityCall is one file tool call the model issues: a read, or a
// write (which the user denies: every run asks before edits).
type parityCall struct{ id, tool, path string }

// args is the call's input.
func (c parityCall) args() map[string]any {
	if c.tool == "write" {
		return map[string]any{"path": c.path, "content": "new\n"}
	}
	return map[string]any{"path": c.path}
}

// outcome is what one file tool's result got: the appended block, what
// its record says, and the chain in effect for the call.
type outcome struct {
	block     string
	delivered []entries.Delivered
	deferred  []string
	labels    []string
}

func (o outcome) String() string {
	var ds []string
	for _, d := range o.delivered {
		ds = append(ds, fmt.Sprintf("%s(%s,%s,%d,trunc=%v)", d.Label, d.Via, d.Digest, d.Bytes, d.Truncated))
	}
	return fmt.Sprintf("labels=%q delivered=%v deferred=%q block=%q", o.labels, ds, o.deferred, o.block)
}

// parityProject is a root with nested instruction files: sub/ and
// other/ hold one each, top.txt has none; big/ holds folders a, b, c whose
// AGENTS.md are 12 KiB each (three fill more than a turn's 32 KiB) and
// huge/ one of 20,000 bytes (cut at 16 KiB).
func parityProject(t *testing.T) string {
	t.Helper()
	root := project(t)
	write(t, filepath.Join(root, "other", "AGENTS.md"), "OTHER-RULES: spaces only.\n")
	write(t, filepath.Join(root, "other", "o.txt"), "other file\n")
	for _, d := range []string{"a", "b", "c"} {
		write(t, filepath.Join(root, "big", d, "AGENTS.md"), strings.Repeat(d+"-rule\n", 12*1024/7))
		write(t, filepath.Join(root, "big", d, "x.txt"), d+"\n")
	}
	write(t, filepath.Join(root, "huge", "AGENTS.md"), strings.Repeat("huge rule line\n", 20000/15))
	write(t, filepath.Join(root, "huge", "h.txt"), "h\n")
	return root
}

func read(id, path string) parityCall { return parityCall{id: id, tool: "read", path: path} }

func deniedWrite(id, path string) parityCall { return parityCall{id: id, tool: "write", path: path} }

// deny is the user, who refuses every edit.
func deny(context.Context, events.Approval) (bool, error) { return false, nil }

func prompt(turns ...[]parityCall) parityStep { return parityStep{turns: turns} }

func turn(calls ...parityCall) []parityCall { return calls }

func TestDeliveryParityWithTheBuiltinEngine(t *testing.T) {
	cases := []struct {
		name      string
		untrusted bool
		steps     []parityStep
		// check says what a user would notice, on the built-in engine's
		// outcomes (both engines are then compared call by call).
		check func(t *testing.T, got map[string]outcome)
	}{
		{name: "first read in a nested folder delivers; a second one in it does not",
			steps: []parityStep{prompt(turn(read("c1", "sub/file.txt")), turn(read("c2", "sub/file.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				delivers(t, got["c1"], "sub/AGENTS.md")
				silent(t, got["c2"])
			}},
		{name: "a sibling folder switches the chain",
			steps: []parityStep{prompt(turn(read("c1", "sub/file.txt")), turn(read("c2", "other/o.txt")), turn(read("c3", "top.txt")),
				turn(read("c4", "sub/file.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				delivers(t, got["c1"], "sub/AGENTS.md")
				delivers(t, got["c2"], "other/AGENTS.md")
				names(t, got["c2"], "AGENTS.md", "other/AGENTS.md")
				names(t, got["c3"], "AGENTS.md")
				names(t, got["c4"], "AGENTS.md", "sub/AGENTS.md")
				if strings.Contains(got["c4"].block, "NESTED-RULES") {
					t.Errorf("back in sub, its file came again on the same branch: %s", got["c4"])
				}
			}},
		{name: "an untrusted project gets the withheld notice only", untrusted: true,
			steps: []parityStep{prompt(turn(read("c1", "sub/file.txt")), turn(read("c2", "sub/file.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				if b := got["c1"].block; !strings.Contains(b, "This project is untrusted") || !strings.Contains(b, `"sub/AGENTS.md"`) || strings.Contains(b, "NESTED-RULES") {
					t.Errorf("untrusted read: %s", got["c1"])
				}
				if len(got["c1"].delivered) != 0 {
					t.Errorf("untrusted read delivered %v", got["c1"].delivered)
				}
				silent(t, got["c2"])
			}},
		{name: "the per-turn budget defers what does not fit to a later turn",
			steps: []parityStep{prompt(turn(read("c1", "big/a/x.txt"), read("c2", "big/b/x.txt"), read("c3", "big/c/x.txt")),
				turn(read("c4", "big/c/x.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				delivers(t, got["c1"], "big/a/AGENTS.md")
				delivers(t, got["c2"], "big/b/AGENTS.md")
				if o := got["c3"]; len(o.delivered) != 0 || !slices.Equal(o.deferred, []string{"big/c/AGENTS.md"}) || !strings.Contains(o.block, "Not delivered in this turn (budget)") {
					t.Errorf("third big file in one turn: %s", o)
				}
				delivers(t, got["c4"], "big/c/AGENTS.md")
			}},
		{name: "a file over 16 KiB is cut with a note",
			steps: []parityStep{prompt(turn(read("c1", "huge/h.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				o := got["c1"]
				delivers(t, o, "huge/AGENTS.md")
				if len(o.delivered) != 1 || !o.delivered[0].Truncated || !strings.Contains(o.block, `[Truncated: "huge/AGENTS.md" is shown only in part`) {
					t.Errorf("huge file: %s", o)
				}
			}},
		{name: "after a compaction that summarised the delivery away it comes again",
			steps: []parityStep{prompt(turn(read("c1", "sub/file.txt"))), prompt(), {compact: true}, prompt(turn(read("c2", "sub/file.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				delivers(t, got["c1"], "sub/AGENTS.md")
				delivers(t, got["c2"], "sub/AGENTS.md")
			}},
		{name: "after /tree to before the delivery it comes again",
			steps: []parityStep{prompt(), prompt(turn(read("c1", "sub/file.txt"))), {tree: 1}, prompt(turn(read("c2", "sub/file.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				delivers(t, got["c1"], "sub/AGENTS.md")
				delivers(t, got["c2"], "sub/AGENTS.md")
			}},
		{name: "a resumed session does not deliver again",
			steps: []parityStep{prompt(turn(read("c1", "sub/file.txt"))), {resume: true}, prompt(turn(read("c2", "sub/file.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				delivers(t, got["c1"], "sub/AGENTS.md")
				silent(t, got["c2"])
			}},
		{name: "a failed tool result delivers nothing",
			steps: []parityStep{prompt(turn(read("c1", "sub/missing.txt")), turn(read("c2", "sub/file.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				if o := got["c1"]; o.block != "" || len(o.delivered) != 0 || len(o.deferred) != 0 {
					t.Errorf("failed read: %s", o)
				}
				delivers(t, got["c2"], "sub/AGENTS.md")
			}},
		{name: "a failed tool result does not switch the chain unsaid",
			steps: []parityStep{prompt(turn(read("c1", "sub/file.txt")), turn(read("c2", "missing.txt")), turn(read("c3", "top.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				delivers(t, got["c1"], "sub/AGENTS.md")
				silent(t, got["c2"])
				// The model was last told sub's chain: the first result it can
				// read outside sub says that chain no longer applies.
				names(t, got["c3"], "AGENTS.md")
			}},
		{name: "a denied file tool does not switch the chain unsaid",
			steps: []parityStep{prompt(turn(read("c1", "sub/file.txt")), turn(deniedWrite("c2", "new.txt")), turn(read("c3", "top.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				delivers(t, got["c1"], "sub/AGENTS.md")
				silent(t, got["c2"])
				names(t, got["c3"], "AGENTS.md")
			}},
		{name: "a full read of a context file counts as delivering it",
			steps: []parityStep{prompt(turn(read("c1", "sub/AGENTS.md")), turn(read("c2", "sub/file.txt")))},
			check: func(t *testing.T, got map[string]outcome) {
				o := got["c1"]
				if len(o.delivered) != 1 || o.delivered[0].Via != "read" || strings.Contains(o.block, "## ") {
					t.Errorf("full read of sub/AGENTS.md: %s", o)
				}
				names(t, o, "AGENTS.md", "sub/AGENTS.md")
				silent(t, got["c2"])
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := parityProject(t)
			pre := folderChain{root: root, trusted: !c.untrusted}
			builtin, results, _ := runBuiltin(t, root, pre, c.steps)
			c.check(t, builtin)
			host := runHost(t, root, pre, c.steps, results)
			var ids []string
			for id := range builtin {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			for _, id := range ids {
				if b, h := builtin[id], host[id]; b.String() != h.String() {
					t.Errorf("%s differs:\n built-in: %s\n pi host:  %s", id, b, h)
				}
			}
			if len(host) != len(builtin) {
				t.Errorf("the host decided %d calls, the built-in engine %d", len(host), len(builtin))
			}
		})
	}
}

// The pi engine continuing a session the built-in engine wrote reads its
// results as the built-in engine does: a failed read's chain, kept in the
// result's pi-tui extras, is not the chain the model was told.
func TestHostContinuesTheBuiltinEnginesSession(t *testing.T) {
	root := parityProject(t)
	pre := folderChain{root: root, trusted: true}
	_, _, file := runBuiltin(t, root, pre, []parityStep{prompt(turn(read("c1", "sub/file.txt")), turn(read("c2", "missing.txt")))})
	d := NewDecisions(Deps{Root: root, SessionFile: file, Preflight: pre, BaseChain: []string{"AGENTS.md"}})
	defer d.Close()
	ctx := context.Background()
	d.System(ctx, SystemRequest{})
	input := json.RawMessage(`{"path":"top.txt"}`)
	if _, err := d.ToolCall(ctx, ToolCallRequest{ToolCallID: "c3", ToolName: "read", Input: input}); err != nil {
		t.Fatal(err)
	}
	r, err := d.ToolResult(ctx, ToolResultRequest{ToolCallID: "c3", ToolName: "read", Input: input, Content: []Content{{Type: "text", Text: "top file\n"}}})
	if err != nil {
		t.Fatal(err)
	}
	names(t, outcome{block: r.Append}, "AGENTS.md")
}

func delivers(t *testing.T, o outcome, label string) {
	t.Helper()
	if len(o.delivered) != 1 || o.delivered[0].Label != label || o.delivered[0].Via != "block" || !strings.Contains(o.block, "## \""+label+"\"") {
		t.Errorf("want %s delivered in a block, got %s", label, o)
	}
}

func silent(t *testing.T, o outcome) {
	t.Helper()
	if o.block != "" || len(o.delivered) != 0 || len(o.deferred) != 0 {
		t.Errorf("want nothing appended or recorded, got %s", o)
	}
}

func names(t *testing.T, o outcome, chain ...string) {
	t.Helper()
	var want strings.Builder
	for _, l := range chain {
		want.WriteString("- \"" + l + "\"\n")
	}
	if !strings.Contains(o.block, "outer first; later ones are closer to the work and take precedence:\n"+want.String()+"Instructions of other folders") {
		t.Errorf("want a block naming %q, got %s", chain, o)
	}
}

// toolOutput is what a tool returned before any block: the host is given
// the same results the built-in engine's tools gave.
type toolOutput struct {
	text    string
	isError bool
}

// scriptedModel plays the turns of the prompt in progress: each model
// call takes the next turn, then it answers; a compaction's request gets a
// summary.
type scriptedModel struct {
	mu    sync.Mutex
	turns [][]parityCall
}

func (m *scriptedModel) reply(_ int, req fakemodel.Request) fakemodel.Reply {
	if strings.HasPrefix(req.System, "You summarise") {
		return fakemodel.Reply{Text: "summary of the earlier work"}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.turns) == 0 {
		return fakemodel.Reply{Text: "done"}
	}
	t := m.turns[0]
	m.turns = m.turns[1:]
	var calls []fakemodel.Call
	for _, c := range t {
		calls = append(calls, fakemodel.Call{ID: c.id, Name: c.tool, Args: c.args()})
	}
	return fakemodel.Reply{Calls: calls}
}

// runBuiltin runs the steps through core/agent and returns each call's
// outcome, its tool's own output, and the session's file.
func runBuiltin(t *testing.T, root string, pre toolpolicy.Preflighter, steps []parityStep) (map[string]outcome, map[string]toolOutput, string) {
	t.Helper()
	ctx := context.Background()
	base := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(base, "db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p, _, err := registry.NewRegistry(st, t.TempDir()).Add(ctx, root, "", true)
	if err != nil {
		t.Fatal(err)
	}
	sm := sessions.NewManager(st, sessions.Config{AgentDir: filepath.Join(base, "agent")})
	sess, err := sm.Create(ctx, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	model := &scriptedModel{}
	fake := fakemodel.New(t, model.reply)
	client, err := provider.New(pisettings.ProviderConfig{Name: "fake", API: "openai-completions", BaseURL: fake.URL, APIKey: "k"},
		func(string) string { return "" }, provider.Options{MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	newAgent := func() *agent.Agent {
		return agent.New(agent.Config{Session: sess, Root: root, Client: client, Model: provider.Model{Provider: "fake", ID: "m1", ContextWindow: 1 << 20},
			System: "sys", Permission: toolpolicy.PermissionAsk, Approve: deny, Preflight: pre, BaseChain: []string{"AGENTS.md"}})
	}
	ag := newAgent()
	var leaves []string // the leaf after each prompt
	for i, s := range steps {
		switch {
		case s.compact:
			if _, err := ag.Compact(ctx, ""); err != nil {
				t.Fatalf("step %d: compact: %v", i, err)
			}
		case s.tree > 0:
			if err := sess.Branch(ctx, leaves[s.tree-1]); err != nil {
				t.Fatalf("step %d: /tree: %v", i, err)
			}
		case s.resume:
			id := sess.ID()
			sess.Close()
			if sess, err = sm.Open(ctx, id); err != nil {
				t.Fatalf("step %d: resume: %v", i, err)
			}
			ag = newAgent()
		default:
			model.mu.Lock()
			model.turns = s.turns
			model.mu.Unlock()
			if _, err := ag.Prompt(ctx, fmt.Sprintf("step %d", i)); err != nil {
				t.Fatalf("step %d: prompt: %v", i, err)
			}
			leaves = append(leaves, sess.Leaf())
		}
	}
	t.Cleanup(func() { sess.Close() })
	got, outputs := builtinOutcomes(t, sess)
	return got, outputs, sess.File()
}

// builtinOutcomes reads each tool result of the built-in engine's session
// (every branch) with its record.
func builtinOutcomes(t *testing.T, sess *sessions.Session) (map[string]outcome, map[string]toolOutput) {
	t.Helper()
	records := map[string]entries.DeliveryRecord{} // by tool result entry
	for _, e := range sess.Entries() {
		var r entries.DeliveryRecord
		if e.Type == sessions.TypeCustom && json.Unmarshal(e.Payload(), &r) == nil && r.Kind == entries.CustomSubdirContext {
			records[r.ToolResultID] = r
		}
	}
	got, outputs := map[string]outcome{}, map[string]toolOutput{}
	for _, e := range sess.Entries() {
		if e.Type != sessions.TypeToolResult {
			continue
		}
		var sm entries.StoredMessage
		if err := json.Unmarshal(e.Payload(), &sm); err != nil || len(sm.Message.Parts) != 1 {
			t.Fatalf("tool result %s: %v", e.ID, err)
		}
		part := sm.Message.Parts[0]
		text, block := part.Text, ""
		if i := strings.LastIndex(text, "\n\n<instructions>\n"); i >= 0 {
			text, block = text[:i], text[i:]
		}
		o := outcome{block: block}
		if sm.Preflight != nil {
			o.labels = sm.Preflight.Labels
		}
		if r, ok := records[e.ID]; ok {
			o.delivered, o.deferred = r.Delivered, r.Deferred
		}
		got[part.ToolCallID] = o
		outputs[part.ToolCallID] = toolOutput{text: text, isError: part.IsError}
	}
	return got, outputs
}

// piFile writes a session file as pi 1.6 does: a v3 header, then one
// entry a line, each with the id of its parent; a /tree move only moves
// the leaf (the next entry's parent).
type piFile struct {
	t    *testing.T
	path string
	n    int
	leaf string
}

func (f *piFile) append(v map[string]any) string {
	f.t.Helper()
	if f.n == 0 {
		f.line(map[string]any{"type": "session", "version": 3, "id": "0190-parity", "timestamp": time.Now().UTC().Format(time.RFC3339Nano), "cwd": "/p"})
	}
	f.n++
	id := fmt.Sprintf("e%07d", f.n)
	v["id"] = id
	if f.leaf == "" {
		v["parentId"] = nil
	} else {
		v["parentId"] = f.leaf
	}
	v["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
	f.line(v)
	f.leaf = id
	return id
}

func (f *piFile) line(v any) {
	f.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		f.t.Fatal(err)
	}
	w, err := os.OpenFile(f.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		f.t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Write(append(b, '\n')); err != nil {
		f.t.Fatal(err)
	}
}

func (f *piFile) message(m map[string]any) string {
	return f.append(map[string]any{"type": "message", "message": m})
}

func (f *piFile) assistant(content []map[string]any, stop string) string {
	return f.message(map[string]any{"role": "assistant", "content": content, "api": "openai-completions", "provider": "fake", "model": "m1",
		"usage": map[string]any{"input": 10, "output": 3, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 13}, "stopReason": stop, "timestamp": time.Now().UnixMilli()})
}

// runHost runs the steps through Decisions as pi drives the bridge: at
// each prompt the system request; per turn the assistant message with its
// tool calls, then each call's tool_call and tool_result hooks (pi runs a
// turn's tools in parallel: the records the host returns are written as
// each hook returns, before the turn's tool results), then the results.
func runHost(t *testing.T, root string, pre toolpolicy.Preflighter, steps []parityStep, outputs map[string]toolOutput) map[string]outcome {
	t.Helper()
	ctx := context.Background()
	f := &piFile{t: t, path: filepath.Join(t.TempDir(), "s.jsonl")}
	deps := Deps{Root: root, SessionFile: f.path, Preflight: pre, BaseChain: []string{"AGENTS.md"}, Permission: toolpolicy.PermissionAsk, Approve: deny}
	d := NewDecisions(deps)
	t.Cleanup(func() { d.Close() })
	got := map[string]outcome{}
	var leaves, users []string
	for i, s := range steps {
		switch {
		case s.compact:
			// pi keeps the latest turn, as the built-in engine's manual
			// compaction does: the first kept entry is the last user message.
			f.append(map[string]any{"type": "compaction", "summary": "summary of the earlier work", "firstKeptEntryId": users[len(users)-1], "tokensBefore": 100})
		case s.tree > 0:
			f.leaf = leaves[s.tree-1]
		case s.resume:
			d.Close()
			d = NewDecisions(deps)
		default:
			if _, err := d.System(ctx, SystemRequest{}); err != nil {
				t.Fatal(err)
			}
			users = append(users, f.message(map[string]any{"role": "user", "content": []map[string]any{{"type": "text", "text": fmt.Sprintf("step %d", i)}}, "timestamp": time.Now().UnixMilli()}))
			for _, calls := range s.turns {
				var content []map[string]any
				for _, c := range calls {
					content = append(content, map[string]any{"type": "toolCall", "id": c.id, "name": c.tool, "arguments": c.args()})
				}
				f.assistant(content, "toolUse")
				appended, blocked := map[string]string{}, map[string]string{}
				for _, c := range calls {
					input, _ := json.Marshal(c.args())
					r, err := d.ToolCall(ctx, ToolCallRequest{ToolCallID: c.id, ToolName: c.tool, Input: input, LeafID: f.leaf})
					// Blocked here: the test's writes (denied), and reads of
					// a missing file, which the host refuses before pi could
					// read a look-alike name instead (pipaths.go); the
					// built-in engine's read fails on them instead.
					want := c.tool == "write"
					if p, _ := c.args()["path"].(string); c.tool == "read" {
						if _, serr := os.Lstat(filepath.Join(root, p)); serr != nil {
							want = true
						}
					}
					if err != nil || r.Block != want {
						t.Fatalf("tool_call %s: %+v %v", c.id, r, err)
					}
					if r.Block {
						blocked[c.id] = r.Reason
					}
				}
				for _, c := range calls {
					if reason, ok := blocked[c.id]; ok {
						// pi runs no tool_result hook for a blocked call: its
						// result is the reason, as an error.
						o := outcome{}
						if p, _, _ := d.ToolInfo(c.id); p != nil {
							o.labels = p.Labels
						}
						got[c.id] = o
						outputs[c.id] = toolOutput{text: reason, isError: true}
						continue
					}
					input, _ := json.Marshal(c.args())
					out := outputs[c.id]
					r, err := d.ToolResult(ctx, ToolResultRequest{ToolCallID: c.id, ToolName: c.tool, Input: input, IsError: out.isError,
						Content: []Content{{Type: "text", Text: out.text}}, LeafID: f.leaf})
					if err != nil {
						t.Fatalf("tool_result %s: %v", c.id, err)
					}
					o := outcome{block: r.Append}
					if p, _, _ := d.ToolInfo(c.id); p != nil {
						o.labels = p.Labels
					}
					if r.Entry != nil {
						rec, ok := r.Entry.Data.(entries.DeliveryRecord)
						if !ok || r.Entry.CustomType != RecordType {
							t.Fatalf("tool_result %s: entry %+v", c.id, r.Entry)
						}
						if !slices.Equal(rec.Labels, o.labels) {
							t.Errorf("%s: the record's chain %q is not the call's %q", c.id, rec.Labels, o.labels)
						}
						o.delivered, o.deferred = rec.Delivered, rec.Deferred
						f.append(map[string]any{"type": "custom", "customType": r.Entry.CustomType, "data": rec})
					}
					appended[c.id] = r.Append
					got[c.id] = o
				}
				for _, c := range calls {
					content := []map[string]any{{"type": "text", "text": outputs[c.id].text}}
					if a := appended[c.id]; a != "" {
						content = append(content, map[string]any{"type": "text", "text": a})
					}
					f.message(map[string]any{"role": "toolResult", "toolCallId": c.id, "toolName": c.tool, "content": content, "isError": outputs[c.id].isError, "timestamp": time.Now().UnixMilli()})
				}
			}
			f.assistant([]map[string]any{{"type": "text", "text": "done"}}, "stop")
			leaves = append(leaves, f.leaf)
		}
	}
	return got
}
