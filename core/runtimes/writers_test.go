package runtimes

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// fileEntries reads a session file's entries (the header left out).
func fileEntries(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if e["type"] != "session" {
			out = append(out, e)
		}
	}
	return out
}

// userEntry returns the id of the user message saying text.
func userEntry(t *testing.T, es []map[string]any, text string) string {
	t.Helper()
	for _, e := range es {
		if m, ok := e["message"].(map[string]any); ok && m["role"] == "user" && strings.Contains(fmt.Sprint(m["content"]), text) {
			return e["id"].(string)
		}
	}
	t.Fatalf("no user message %q in the file", text)
	return ""
}

// linearTo checks that the file's entries make one branch (no entry has
// two children) and that id descends from anc.
func linearTo(t *testing.T, es []map[string]any, id, anc string) {
	t.Helper()
	parent, children := map[string]string{}, map[string]int{}
	for _, e := range es {
		p, _ := e["parentId"].(string)
		parent[e["id"].(string)] = p
		children[p]++
		if children[p] > 1 {
			t.Errorf("entry %q has two children: the file forked at %s", p, e["id"])
		}
	}
	for i := id; i != ""; i = parent[i] {
		if i == anc {
			return
		}
	}
	t.Errorf("%s does not descend from %s", id, anc)
}

// A turn another program appended to the file while the session's pi was
// idle: pi does not hold it, so the next prompt relaunches pi (reason
// other-writer), and the new pi's first entry hangs under that turn's
// last, not under pi's own old leaf. Without another writer, pi is
// reused.
func TestPiRelaunchedWhenAnotherWriterAppended(t *testing.T) {
	r := newPiRig(t, fakepi.Script{Replies: []fakepi.Reply{{Text: "one"}, {Text: "two"}, {Text: "three"}}}, nil)
	r.prompt("first")
	r.prompt("second")
	if l := find[events.RuntimeLaunched](r.take()); len(l) != 1 {
		t.Fatalf("launches = %+v, want one (then reused)", l)
	}
	s, err := r.m.Sessions().Open(context.Background(), r.sid)
	if err != nil {
		t.Fatal(err)
	}
	es := fileEntries(t, s.File())
	last := es[len(es)-1]["id"].(string)
	f, err := os.OpenFile(s.File(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"type":"message","id":"0ther0001","parentId":%q,"timestamp":"2026-12-05T12:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"from pi -c"}],"timestamp":1}}`+"\n", last)
	fmt.Fprint(f, `{"type":"message","id":"0ther0002","parentId":"0ther0001","timestamp":"2026-12-05T12:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"pi -c's answer"}],"stopReason":"stop","timestamp":2}}`+"\n")
	f.Close()

	r.prompt("third")
	ev := r.take()
	if ret := find[events.RuntimeRetired](ev); len(ret) != 1 || ret[0].Reason != ReasonOtherWriter {
		t.Errorf("retired = %+v, want one with reason %s", ret, ReasonOtherWriter)
	}
	if l := find[events.RuntimeLaunched](ev); len(l) != 1 || l[0].Reason != ReasonOtherWriter {
		t.Errorf("launched = %+v, want one with reason %s", l, ReasonOtherWriter)
	}
	es = fileEntries(t, s.File())
	linearTo(t, es, userEntry(t, es, "third"), "0ther0002")
}
