package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// stampThenAnswer: a prompt "stamp LABEL" makes the model call stamp with
// that label (and times 2, sent first); after the result, or for any other
// prompt, it answers "done".
func stampThenAnswer(n int, req fakemodel.Request) fakemodel.Reply {
	if label, ok := strings.CutPrefix(req.LastUser, "stamp "); ok && req.LastToolResult == "" {
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: fmt.Sprintf("s%d", n), Name: "stamp", Args: map[string]any{"times": 2, "label": label}}}}
	}
	return fakemodel.Reply{Text: "done"}
}

// projectWithResources gives the rig's project resources of its own that
// pi 1.6 loads only into a trusted project: settings, an extension and a
// prompt template.
func projectWithResources(t *testing.T, root string) {
	t.Helper()
	writeFile(t, filepath.Join(root, ".pi", "settings.json"), `{}`)
	writeFile(t, filepath.Join(root, ".pi", "extensions", "stamp.ts"), realpi.StampExtension)
	writeFile(t, filepath.Join(root, ".pi", "prompts", "fix.md"), "Fix the bug in $1.")
}

// A project with .pi/ resources starts the real pi (which asks
// project_trust at its start) and answers. Trusted, its extension's tool
// is offered and runs, and runtime_launched says what pi loaded; the
// default engine (auto) runs it too.
func TestRealPiTrustedProjectLoadsItsResources(t *testing.T) {
	c := realPiCLI(t)
	fake, root := realPiProject(t, c, true, stampThenAnswer)
	projectWithResources(t, root)

	code, evs, errs := promptPi(t, c, "--yes", "stamp v1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	launchedPi(t, evs)
	reqs := fake.Requests()
	if len(reqs) == 0 || !strings.Contains(reqs[0].Raw, `"name":"stamp"`) {
		t.Fatalf("the trusted project's extension tool is not offered to the model")
	}
	if res := lastResult(fake); !strings.Contains(res, "STAMPED-v1") {
		t.Errorf("the model was not sent stamp's text: %q", res)
	}
	l := typed(evs, "runtime_launched")[0]
	res, _ := l["projectResources"].(map[string]any)
	loaded := fmt.Sprint(res["loaded"])
	for _, want := range []string{".pi/settings.json", ".pi/extensions/stamp.ts", ".pi/prompts/fix.md"} {
		if !strings.Contains(loaded, want) {
			t.Errorf("runtime_launched does not say pi loaded %s: %v", want, l)
		}
	}
	if res["declined"] != nil {
		t.Errorf("a trusted project's resources are said declined: %v", res)
	}
	if notes := typed(evs, "notice"); len(notes) != 1 || !strings.Contains(fmt.Sprint(notes[0]["text"]), "pi loaded this project's own resources (the project is trusted): .pi/settings.json") {
		t.Errorf("no notice says what pi loaded: %v", notes)
	}

	// The default engine (auto) finds the same pi and chats in the project.
	code, out, errs := c.run("", "prompt", "--project", "mono", "hello")
	if code != 0 || !strings.Contains(out, "done") {
		t.Fatalf("with the default engine: exit %d, %q: %s", code, out, errs)
	}
}

// Untrusted, the same project starts and answers; pi declines its
// resources (the extension's tool is not offered), and both the notice
// and runtime_launched say so, why and how to trust it.
func TestRealPiUntrustedProjectDeclinesItsResources(t *testing.T) {
	c := realPiCLI(t)
	fake, root := realPiProject(t, c, false, stampThenAnswer)
	projectWithResources(t, root)

	code, evs, errs := promptPi(t, c, "hello")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	launchedPi(t, evs)
	if ends := typed(evs, "agent_end"); len(ends) == 0 || ends[len(ends)-1]["text"] != "done" {
		t.Errorf("pi did not answer: %v", ends)
	}
	reqs := fake.Requests()
	if len(reqs) == 0 || strings.Contains(reqs[0].Raw, `"name":"stamp"`) {
		t.Errorf("the untrusted project's extension tool is offered to the model")
	}
	l := typed(evs, "runtime_launched")[0]
	res, _ := l["projectResources"].(map[string]any)
	if d := fmt.Sprint(res["declined"]); !strings.Contains(d, ".pi/extensions/stamp.ts") || res["loaded"] != nil {
		t.Errorf("runtime_launched does not say the resources were declined: %v", l)
	}
	const why = "the project is not trusted: press t in Projects / pi-tui projects trust mono"
	if res["reason"] != why {
		t.Errorf("runtime_launched's reason is %q, want %q", res["reason"], why)
	}
	notes := typed(evs, "notice")
	if len(notes) != 1 || !strings.Contains(fmt.Sprint(notes[0]["text"]), "pi declined this project's own resources ("+why+")") {
		t.Errorf("the notices are %v", notes)
	}
}
