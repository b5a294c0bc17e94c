package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/provider"
)

// wireSamples is one event of every kind on the wire, in the order of the
// lines of testdata/wire.jsonl. That file was written by the encoder the
// typed events replaced (one flat struct keyed by a type string), so a
// line that differs is a change clients would see; the one change since
// is additive: runtime_launched names its engine.
func wireSamples() []Event {
	usage := &provider.Usage{InputTokens: 1200, OutputTokens: 80, CacheReadTokens: 1000, CacheWriteTokens: 7}
	return []Event{
		RuntimeLaunched{SessionID: "s1", Reason: "new", Model: "fake/m1", Engine: "builtin", EngineVersion: "(devel)"},
		RuntimeReused{SessionID: "s1", Reason: "unchanged", Model: "fake/m1"},
		RuntimeRetired{SessionID: "s1", Reason: "memory-changed", Model: "fake/m1"},
		AgentStarted{SessionID: "s1"},
		TextDelta{SessionID: "s1", Text: "Hello <b>&amp; \"world\"\n\u2028 \x1b[31m é"},
		ThinkingDelta{SessionID: "s1", Text: "weigh <a> & <b>"},
		MessageEnded{SessionID: "s1", Text: "I will read it.", StopReason: "toolUse", Usage: usage},
		MessageEnded{SessionID: "s1", Text: "Half an ans", StopReason: provider.StopAborted, Usage: &provider.Usage{}, Error: "context canceled"},
		Retrying{SessionID: "s1", Attempt: 1, MaxAttempts: 3, Delay: 2 * time.Second, Reason: "429 Too Many Requests"},
		ToolStarted{SessionID: "s1", ToolCallID: "c1", ToolName: "read", Args: json.RawMessage("{\n  \"path\": \"a<b>.go\"\n}")},
		ToolOutput{SessionID: "s1", ToolCallID: "c2", ToolName: "bash", Text: "ok  \tpkg\t0.5s\n", Skipped: 4096},
		ToolEnded{SessionID: "s1", ToolCallID: "c1", ToolName: "read", Path: "packages/api/handler.go", Result: "package api\n",
			Preflight: &Preflight{Ms: 0.25, Cache: "miss", Labels: []string{"AGENTS.md", "packages/api/AGENTS.md"}, Withheld: []string{"x/AGENTS.md"}},
			ToolMs:    1.5, Delivery: &Delivery{Chain: []string{"AGENTS.md", "packages/api/AGENTS.md"},
				Delivered: []DeliveredFile{{Label: "packages/api/AGENTS.md", Bytes: 22, Truncated: true, Via: "block"}},
				Deferred:  []string{"packages/AGENTS.md"}, Untrusted: true, Withheld: []string{"w"}, Fallback: true}},
		ToolEnded{SessionID: "s1", ToolCallID: "c3", ToolName: "write", Path: ".git/config", IsError: true,
			Result: "The user denied this write call.", Preflight: &Preflight{Cache: "hit", Fallback: "base"}, Denied: true},
		ToolEnded{SessionID: "s1", ToolCallID: "m1", ToolName: "remember", Result: "Saved to project memory", ToolMs: 0.75,
			MemoryChange: &memory.Change{Root: "/p", Action: memory.ActionAdd, Index: 2, After: &memory.Entry{ID: "e1", Title: "Build", Content: "run <task>", By: memory.ByAgent}, Bytes: 321}},
		ToolEnded{SessionID: "s1", ToolCallID: "c4", ToolName: "bash", IsError: true, Result: "The user aborted before this tool ran."},
		CompactionStarted{SessionID: "s1"},
		CompactionEnded{SessionID: "s1", Summary: "The user wants <tabs>."},
		CompactionEnded{SessionID: "s1", Error: "compaction: the model returned an empty summary"},
		AgentEnded{SessionID: "s1", Text: "Done & dusted.", Usage: usage, StopReason: provider.StopEnd},
		AgentEnded{SessionID: "s1", Usage: &provider.Usage{}, StopReason: provider.StopAborted},
		AgentEnded{SessionID: "s1", Error: "no model is configured", StopReason: provider.StopError},
		Notice{SessionID: "s1", Level: "warning", Source: "/home/u/.pi/agent/extensions/x.ts", Text: "Command <blocked> by user"},
		ExtensionStatus{SessionID: "s1", Method: "setStatus", Key: "my-ext", Text: "Turn 3 running…"},
		ExtensionStatus{SessionID: "s1", Method: "setWidget", Key: "w", Lines: []string{"--- W ---", "line <1>"}, Placement: "belowEditor"},
	}
}

// Every kind on the wire encodes as pi-tui always wrote it, byte for byte.
func TestWireIsTheFormerEncoding(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile("testdata/wire.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(want, []byte("\n"))
	samples := wireSamples()
	if len(lines) != len(samples)+1 { // the last split is empty
		t.Fatalf("%d samples for %d golden lines", len(samples), len(lines)-1)
	}
	for i, e := range samples {
		got, err := Marshal(e)
		if err != nil {
			t.Errorf("%T: %v", e, err)
			continue
		}
		if w := bytes.TrimSuffix(lines[i], []byte("\n")); !bytes.Equal(got, w) {
			t.Errorf("%T:\n got %s\nwant %s", e, got, w)
		}
	}
}

// The kinds of this process's programs never reach the wire, and a tool
// call whose arguments are not JSON fails instead of writing half a line.
func TestWireLeavesOutWhatIsNotItsOwn(t *testing.T) {
	t.Parallel()
	for _, e := range offWire {
		if line, err := Marshal(e); !errors.Is(err, ErrNoWireForm) {
			t.Errorf("%T went on the wire: %s", e, line)
		}
	}
	if line, err := Marshal(ToolStarted{SessionID: "s1", Args: json.RawMessage(`{"path":`)}); err == nil {
		t.Errorf("arguments that are not JSON were written: %s", line)
	}
}

// Every kind of the set is either a sample above or known to stay off the
// wire: a kind added to kinds.go without either fails here.
func TestWireCoversEveryKind(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(gotoken.NewFileSet(), "kinds.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, e := range append(wireSamples(), QueueChanged{}) {
		covered[fmt.Sprintf("%T", e)] = true
	}
	for _, e := range offWire {
		covered[fmt.Sprintf("%T", e)] = true
	}
	n := 0
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "event" || fn.Recv == nil {
			continue
		}
		n++
		name := "events." + fn.Recv.List[0].Type.(*ast.Ident).Name
		if !covered[name] {
			t.Errorf("%s has no wire sample and is not listed as off the wire", name)
		}
	}
	if n < 20 {
		t.Errorf("found %d kinds in kinds.go", n)
	}
}

// offWire are the kinds that concern this process's programs only.
var offWire = []Event{Asked{ID: 1, SessionID: "s1"}, Resolved{ID: 1, SessionID: "s1"}, ProjectsChanged{}, MemoryChanged{Root: "/p"},
	SessionAppended{SessionID: "s1", Entries: 2}, ChangesUpdated{SessionID: "s1"}, PlanChanged{SessionID: "s1", On: true}}

// queue_update has pi's shape: both lists, empty ones too.
func TestWireQueue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		e    QueueChanged
		want string
	}{
		{QueueChanged{SessionID: "s1", Steering: []string{"stop <that>"}, FollowUp: []string{"then this"}},
			`{"type":"queue_update","sessionId":"s1","steering":["stop <that>"],"followUp":["then this"]}`},
		{QueueChanged{SessionID: "s1"}, `{"type":"queue_update","sessionId":"s1","steering":[],"followUp":[]}`},
	} {
		got, err := Marshal(c.e)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("got %s\nwant %s", got, c.want)
		}
	}
}

// runtime_launched says which project resources pi loaded or declined,
// after the members it always had; without them the line is as before.
func TestWireLaunchedSaysProjectResources(t *testing.T) {
	t.Parallel()
	got, err := Marshal(RuntimeLaunched{SessionID: "s1", Reason: "new", Engine: "pi", EngineVersion: "1.6.0",
		Resources: &ProjectResources{Declined: []string{".pi/extensions/x.ts"}, Reason: "the project is not trusted"}})
	want := `{"type":"runtime_launched","sessionId":"s1","reason":"new","engine":"pi","engineVersion":"1.6.0","projectResources":{"declined":[".pi/extensions/x.ts"],"reason":"the project is not trusted"}}`
	if err != nil || string(got) != want {
		t.Errorf("got  %s (%v)\nwant %s", got, err, want)
	}
}
