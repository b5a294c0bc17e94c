package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// chains is a preflighter that answers from a fixed map of target folder
// to chain, as the host would after resolving.
type chains map[string][]toolpolicy.ContextFile

func (c chains) Preflight(_ context.Context, target string) (toolpolicy.Claim, error) {
	files := c[filepath.Dir(target)]
	cl := toolpolicy.Claim{Deliver: true, Base: []string{"AGENTS.md"}, Labels: []string{"AGENTS.md"}, Sources: files}
	for _, f := range files {
		cl.Labels = append(cl.Labels, f.Label)
	}
	return cl, nil
}

func (c chains) ContextFile(context.Context, string) (toolpolicy.ContextFile, bool, error) {
	return toolpolicy.ContextFile{}, false, nil
}

// file is a nested instruction file of n content bytes, cut with a note
// when it is larger than the 16 KiB a delivery carries.
func file(label string, n int) toolpolicy.ContextFile {
	cf := toolpolicy.ContextFile{Label: label, Path: "/p/" + label, Digest: label, Content: strings.Repeat("r", min(n, 16384)), Bytes: n}
	cf.Shown = len(cf.Content)
	if n > 16384 {
		cf.Truncated = true
		cf.Content += "\n\n[Truncated: \"" + label + "\" is shown only in part (16384 bytes shown; the file has " + "…" + " bytes); read the file for the rest.]"
	}
	return cf
}

// twoReads is a model that reads two files in one turn, then answers.
func twoReads(a, b string) fakemodel.Script {
	return func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{
				{ID: "r1", Name: "read", Args: map[string]string{"path": a}},
				{ID: "r2", Name: "read", Args: map[string]string{"path": b}}}}
		}
		return fakemodel.Reply{Text: "done"}
	}
}

// promptTwoReads runs one prompt whose model reads a then b in one turn,
// with fs as the host's chains, and returns each tool end's delivery.
func promptTwoReads(t *testing.T, fs chains, a, b string) []*events.Delivery {
	t.Helper()
	h := newHarness(t, twoReads(a, b), func(c *Config) { c.Preflight = fs })
	for _, p := range []string{a, b} {
		os.MkdirAll(filepath.Join(h.root, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(h.root, p), []byte("package x\n"), 0o644)
	}
	if _, err := h.ag.Prompt(context.Background(), "read"); err != nil {
		t.Fatal(err)
	}
	return deliveryEnds(h)
}

func deliveryEnds(h *harness) []*events.Delivery {
	var out []*events.Delivery
	for {
		select {
		case e := <-h.evs:
			if e, ok := e.(events.ToolEnded); ok {
				out = append(out, e.Delivery)
			}
		default:
			return out
		}
	}
}

// The per-turn budget counts file content only: two files cut at 16 KiB
// fill 32 KiB exactly and share a turn, their notes notwithstanding.
func TestTurnBudgetCountsContentNotNotes(t *testing.T) {
	fs := chains{"a": {file("a/AGENTS.md", 20000)}, "b": {file("b/AGENTS.md", 20000)}}
	ds := promptTwoReads(t, fs, "a/x.go", "b/x.go")
	if len(ds) != 2 || ds[1] == nil || len(ds[1].Deferred) != 0 || len(ds[1].Delivered) != 1 {
		t.Fatalf("second delivery = %+v", ds)
	}
}

// A file that does not fit stops the turn's delivery: the deeper files
// after it wait too, so rules never arrive inner before outer.
func TestTurnBudgetKeepsOuterFirst(t *testing.T) {
	// 16 KiB + 100 bytes in the first read; 16 KiB more would pass the
	// 32 KiB budget, 100 more would not.
	fs := chains{"a": {file("a/AGENTS.md", 20000), file("a/CLAUDE.md", 100)},
		"b/c": {file("b/AGENTS.md", 20000), file("b/c/AGENTS.md", 100)}}
	ds := promptTwoReads(t, fs, "a/x.go", "b/c/x.go")
	if len(ds) != 2 || ds[1] == nil {
		t.Fatalf("deliveries = %+v", ds)
	}
	if len(ds[1].Delivered) != 0 || strings.Join(ds[1].Deferred, ",") != "b/AGENTS.md,b/c/AGENTS.md" {
		t.Errorf("second delivery = delivered %+v, deferred %q; want both deferred, outer first", ds[1].Delivered, ds[1].Deferred)
	}
}

// closing is a host whose preflight closes the session file under the
// agent, as a disk that fills or turns read-only between two appends would.
type closing struct{ st interface{ Close() error } }

func (c closing) Preflight(context.Context, string) (toolpolicy.Claim, error) {
	c.st.Close()
	return toolpolicy.Claim{}, nil
}

func (c closing) ContextFile(context.Context, string) (toolpolicy.ContextFile, bool, error) {
	return toolpolicy.ContextFile{}, false, nil
}

// A tool result that cannot be saved ends the turn with that error: the
// model is not called again over a history that lacks the result.
func TestUnsavedToolResultEndsTheTurn(t *testing.T) {
	h := newHarness(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "r", Name: "read", Args: map[string]string{"path": "x.go"}}}}
		}
		return fakemodel.Reply{Text: "went on without the result"}
	}, func(c *Config) { c.Preflight = closing{} })
	h.ag.cfg.Preflight = closing{h.sess}
	os.WriteFile(filepath.Join(h.root, "x.go"), []byte("package x\n"), 0o644)
	_, err := h.ag.Prompt(context.Background(), "read it")
	if err == nil || !strings.Contains(err.Error(), "could not be saved") {
		t.Fatalf("prompt error = %v", err)
	}
	if n := len(h.fake.Requests()); n != 1 {
		t.Errorf("the model was called %d times; the turn should stop after the failed save", n)
	}
	var end events.AgentEnded
	for len(h.evs) > 0 {
		if e, ok := (<-h.evs).(events.AgentEnded); ok {
			end = e
		}
	}
	if end.Error == "" || end.StopReason != "error" {
		t.Errorf("agent_end = %+v", end)
	}
}
