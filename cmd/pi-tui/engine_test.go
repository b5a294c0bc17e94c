package main

import (
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// rpc names the engine a runtime launched on, in the event and in
// get_state's last, and passes on every delta the engine streamed, one
// line each, as before the events were typed.
func TestRPCNamesTheEngineAndStreamsEveryDelta(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "Handle does nothing yet."} })
	r := startRPC(t, c, "--project", "mono")
	evs := r.prompt("What does the handler do?")
	l := typed(evs, "runtime_launched")
	if len(l) != 1 || l[0]["engine"] != "builtin" || l[0]["engineVersion"] == "" || l[0]["engineVersion"] == nil {
		t.Fatalf("launch = %v", l)
	}
	var text strings.Builder
	deltas := typed(evs, "message_update")
	for _, d := range deltas {
		text.WriteString(d["delta"].(string))
	}
	// The fake model streams the answer in 7-byte chunks: four lines.
	if len(deltas) != 4 || text.String() != "Handle does nothing yet." {
		t.Errorf("%d deltas: %q", len(deltas), text.String())
	}
	r.send(`{"id":"s","type":"get_state"}`)
	st := r.until(func(m map[string]any) bool { return m["id"] == "s" })
	data, _ := st[len(st)-1]["data"].(map[string]any)
	last, _ := data["last"].(map[string]any)
	if last["type"] != "runtime_launched" || last["engine"] != "builtin" || last["reason"] != "new" {
		t.Errorf("get_state last = %v", data["last"])
	}
}
