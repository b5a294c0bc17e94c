package runtimes

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// requestTools are the tool declarations of a recorded Chat Completions
// request, their parameter schemas as the bytes the request carried.
func requestTools(t *testing.T, req fakemodel.Request) []struct {
	Name, Description string
	Parameters        json.RawMessage
} {
	t.Helper()
	var body struct {
		Tools []struct {
			Function struct {
				Name, Description string
				Parameters        json.RawMessage
			}
		}
	}
	if err := json.Unmarshal([]byte(req.Raw), &body); err != nil {
		t.Fatal(err)
	}
	out := make([]struct {
		Name, Description string
		Parameters        json.RawMessage
	}, len(body.Tools))
	for i, tl := range body.Tools {
		out[i].Name, out[i].Description, out[i].Parameters = tl.Function.Name, tl.Function.Description, tl.Function.Parameters
	}
	return out
}

// On the pi engine /context is what pi sends: before pi has started it
// holds only pi-tui's sections and says so; after a prompt, the system
// prompt and the tool declarations the model server received, byte for
// byte, and when they were sent. (pi-tui used to show its built-in
// engine's prompt, "You are pi…" with seven tools, which pi never sends.)
func TestRealPiContextIsWhatPiSent(t *testing.T) {
	r := realPiRig(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} })
	ctx := context.Background()
	in, err := r.m.Inspect(ctx, r.sid, "")
	if err != nil {
		t.Fatal(err)
	}
	if in.Pi == nil || in.Pi.Known || !in.Pi.Sent.IsZero() || !strings.Contains(in.System, "Root rule: use tabs.") || strings.Contains(in.System, "You are pi") {
		t.Fatalf("before pi started, /context = %+v\n%s", in.Pi, in.System)
	}
	r.prompt("hello")
	reqs := r.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	in, err = r.m.Inspect(ctx, r.sid, "")
	if err != nil {
		t.Fatal(err)
	}
	if in.Pi == nil || in.Pi.Sent.IsZero() {
		t.Fatalf("after a prompt, /context does not say pi sent it: %+v", in.Pi)
	}
	if in.System != reqs[0].System {
		t.Errorf("/context's prompt (%d bytes) is not the one sent (%d bytes):\nshown:\n%s\nsent:\n%s", len(in.System), len(reqs[0].System), in.System, reqs[0].System)
	}
	if in.Pi.Own+"\n\n"+in.Pi.Added != in.System || !strings.Contains(in.Pi.Added, "Root rule: use tabs.") {
		t.Errorf("pi's part and pi-tui's do not make the prompt: own %d bytes, added %q", len(in.Pi.Own), in.Pi.Added)
	}
	sent := requestTools(t, reqs[0])
	if len(sent) == 0 || len(sent) != len(in.Pi.Tools) {
		t.Fatalf("tools shown %+v, sent %+v", in.Pi.Tools, sent)
	}
	for i, tl := range in.Pi.Tools {
		s := sent[i]
		if tl.Name != s.Name || tl.Description != s.Description || !bytes.Equal(tl.Parameters, s.Parameters) {
			t.Errorf("tool %d: shown %s %q %s, sent %s %q %s", i, tl.Name, tl.Description, tl.Parameters, s.Name, s.Description, s.Parameters)
		}
	}
}
