package runtimes

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/entries"
)

// /context in plan mode shows the section plan mode adds, and its whole
// prompt is the one the model is sent; out of plan mode neither has it.
func TestInspectShowsThePlanSection(t *testing.T) {
	r := newRig(t, readThenAnswer, nil)
	ctx := context.Background()
	in, err := r.m.Inspect(ctx, r.sid, "")
	if err != nil {
		t.Fatal(err)
	}
	if in.Plan != "" || strings.Contains(in.System, entries.PlanPrompt) {
		t.Fatalf("out of plan mode the inspection has the plan section: %q", in.Plan)
	}
	r.m.Plans().Set(r.sid, true)
	in, err = r.m.Inspect(ctx, r.sid, "")
	if err != nil {
		t.Fatal(err)
	}
	if in.Plan != entries.PlanPrompt || !strings.HasSuffix(in.System, entries.PlanPrompt+"\n") {
		t.Fatalf("in plan mode the inspection lacks the plan section:\n%s", in.System)
	}
	if _, err := r.m.Prompt(ctx, r.sid, "", "Plan the change."); err != nil {
		t.Fatal(err)
	}
	reqs := r.fake.Requests()
	if got := reqs[0].System; got != in.System {
		t.Errorf("the model was sent another system prompt than /context shows:\nsent:\n%s\nshown:\n%s", got, in.System)
	}
}
