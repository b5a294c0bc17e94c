package main

import (
	"strings"
	"testing"
)

// Nested instructions through the real pi, over one `pi-tui rpc --engine
// pi`: a read under packages/api delivers its AGENTS.md once on the
// branch, in the tool result the model is sent next; the same read again
// delivers nothing; a branch that never saw the delivery (pi ends, the
// leaf moves, pi starts on it) gets it again.
func TestRealPiNestedDeliveryOncePerBranch(t *testing.T) {
	c := realPiCLI(t)
	fake, _ := realPiProject(t, c, true, callsThenAnswer)
	r := startRPC(t, c, "--project", "mono", "--engine", "pi")

	evs := r.prompt("read packages/api/handler.go")
	launchedPi(t, evs)
	if d := deliveries(evs); len(d) != 1 || deliveredLabels(d[0]) != "packages/api/AGENTS.md:block" {
		t.Fatalf("first read delivered %v", d)
	}
	res := lastResult(fake)
	if strings.Count(res, "API rule: wrap errors.") != 1 || !strings.Contains(res, "func Handle()") || strings.Contains(res, "Root rule") {
		t.Errorf("the first read's result does not carry packages/api/AGENTS.md once (and not the root's):\n%s", res)
	}

	if d := deliveries(r.prompt("read packages/api/handler.go")); len(d) != 1 || d[0] != nil {
		t.Errorf("the second read on the branch delivered %v", d)
	}
	if res := lastResult(fake); strings.Contains(res, "API rule") || strings.Contains(res, "<instructions>") {
		t.Errorf("the second read on the branch carries a block again:\n%s", res)
	}

	r.send(`{"id":"br","type":"branch","entryId":""}`)
	if got := r.until(func(m map[string]any) bool { return m["id"] == "br" }); got[len(got)-1]["success"] != true {
		t.Fatalf("branch = %v", got[len(got)-1])
	}
	evs = r.prompt("read packages/api/handler.go")
	if l := typed(evs, "runtime_launched"); len(l) != 1 || l[0]["engine"] != "pi" {
		t.Errorf("after the branch: runtime_launched = %v", l)
	}
	if d := deliveries(evs); len(d) != 1 || deliveredLabels(d[0]) != "packages/api/AGENTS.md:block" {
		t.Errorf("the read on the new branch delivered %v", d)
	}
	if res := lastResult(fake); strings.Count(res, "API rule: wrap errors.") != 1 {
		t.Errorf("the new branch's read does not carry the file once:\n%s", res)
	}
}

// In an untrusted project the read's result carries the "untrusted"
// block naming the nested file, never its text; the root chain still
// reaches pi's system prompt.
func TestRealPiUntrustedProjectGetsTheNoticeOnly(t *testing.T) {
	c := realPiCLI(t)
	fake, _ := realPiProject(t, c, false, callsThenAnswer)
	code, evs, errs := promptPi(t, c, "read packages/api/handler.go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	launchedPi(t, evs)
	d := deliveries(evs)
	if len(d) != 1 || d[0] == nil || d[0]["untrusted"] != true || deliveredLabels(d[0]) != "" {
		t.Fatalf("untrusted delivery = %v", d)
	}
	res := lastResult(fake)
	if !strings.Contains(res, "untrusted") || !strings.Contains(res, "packages/api/AGENTS.md") || strings.Contains(res, "API rule") {
		t.Errorf("the untrusted block:\n%s", res)
	}
	if sys := fake.Requests()[0].System; strings.Count(sys, "Root rule: keep functions short.") != 1 {
		t.Errorf("the root chain is not in pi's system prompt once:\n%s", sys)
	}
}
