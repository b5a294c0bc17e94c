package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// piToolsScript plays the model for TestRealPiToolsAsPiDefinesThem: each
// prompt names a call of pi 1.6's edit (path, edits[]) on code.go or of
// the project's stamp tool; after the result it answers "done with" the
// prompt.
func piToolsScript(n int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult != "" {
		return fakemodel.Reply{Text: "done with " + req.LastUser}
	}
	edit := func(pairs ...string) fakemodel.Reply {
		var edits []map[string]string
		for i := 0; i < len(pairs); i += 2 {
			edits = append(edits, map[string]string{"oldText": pairs[i], "newText": pairs[i+1]})
		}
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: fmt.Sprintf("e%d", n), Name: "edit", Args: map[string]any{"path": "code.go", "edits": edits}}}}
	}
	switch req.LastUser {
	case "several":
		return edit("c := 3", "c := 30", "a := 1", "a := 10")
	case "overlapping":
		return edit("a := 10\nb := 2", "A", "b := 2\nc := 30", "B")
	case "missing":
		return edit("zzz", "q", "b := 2", "B")
	case "duplicate":
		return edit("x()", "y()")
	case "stamp":
		// The model writes times first; the schema has label first.
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "s1", Name: "stamp", Args: map[string]any{"times": 2, "label": "v1"}}}}
	}
	return fakemodel.Reply{Text: "?"}
}

// On the real pi 1.6 (PI_TUI_PI), tools as pi defines them: an edit with
// several edits[] asks with the exact diff pi then applies; one pi will
// refuse (overlapping, not found, not unique) says so in pi's words before
// the user answers, and pi's own result says the same; the project's own
// extension loads (the project is trusted, and the session says so), and
// its tool's approval and line show its arguments in its schema's order.
func TestRealPiToolsAsPiDefinesThem(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	r := newRealPiKitRig(t, 120, 40, argv[0], piToolsScript)
	root := filepath.Join(r.home, "proj")
	writeAt(t, filepath.Join(root, "code.go"), "package code\n\nfunc f() {\na := 1\nb := 2\nc := 3\nx()\nx()\n}\n")
	writeAt(t, filepath.Join(root, ".pi", "extensions", "stamp.ts"), realpi.StampExtension)
	r.chat()
	r.waitScreen("pi loaded this project's own resources", ".pi/extensions/stamp.ts")

	r.say("several")
	r.waitFor("Allow edit?", "2 lines added, 2 removed", "(2 edits, each matched in the file as it is now)",
		"4   │ - a := 1", "  4 │ + a := 10", "6   │ - c := 3", "  6 │ + c := 30")
	r.settle()
	r.keys("y")
	r.waitFor("done with several")
	if b, _ := os.ReadFile(filepath.Join(root, "code.go")); string(b) != "package code\n\nfunc f() {\na := 10\nb := 2\nc := 30\nx()\nx()\n}\n" {
		t.Errorf("pi applied something else than the approval showed:\n%s", b)
	}

	for _, c := range []struct{ prompt, says string }{
		{"overlapping", "edits[0] and edits[1] overlap in code.go."},
		{"missing", "Could not find edits[0] in code.go."},
	} {
		r.say(c.prompt)
		r.waitFor("Allow edit?", "pi will refuse it as it stands", "pi will refuse this edit: "+c.says, "edits[1] as given:")
		r.settle()
		r.keys("n")
		r.waitFor("done with " + c.prompt)
	}
	r.say("duplicate")
	r.waitFor("Allow edit?", "pi will refuse this edit: Found 2 occurrences of the text in code.go.")
	r.settle()
	r.keys("y") // allowed anyway: pi refuses it with the same words
	r.waitFor("done with duplicate")
	reqs := r.fake.Requests()
	if got := reqs[len(reqs)-1].LastToolResult; !strings.Contains(got, "Found 2 occurrences of the text in code.go.") {
		t.Errorf("pi said %q", got)
	}

	r.say("stamp")
	r.waitFor("Allow stamp?", `stamp label="v1" times=2`, "label: v1", "times: 2")
	r.settle()
	r.keys("y")
	r.waitFor("done with stamp", `✓ stamp label="v1" times=2`)
	r.final()
}

// Untrusted, the project's own extension is not loaded into pi, and the
// session says which resources were declined, why and how to trust it.
func TestRealPiUntrustedResourcesSaidInTheSession(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	r := newRealPiKitRig(t, 120, 36, argv[0], piToolsScript)
	ps, err := r.m.opts.Host.Projects.List(t.Context(), true)
	if err != nil || len(ps) != 1 {
		t.Fatalf("projects: %v %v", ps, err)
	}
	if err := r.m.opts.Host.Projects.SetTrusted(t.Context(), ps[0].ID, false); err != nil {
		t.Fatal(err)
	}
	writeAt(t, filepath.Join(r.home, "proj", ".pi", "extensions", "stamp.ts"), realpi.StampExtension)
	r.chat()
	r.waitScreen("pi declined this project's own resources", "press t in Projects", "trust proj", "stamp.ts")
	r.say("stamp")
	r.waitFor("done with stamp")
	if got := r.fake.Requests()[0].Raw; strings.Contains(got, `"name":"stamp"`) {
		t.Error("the untrusted project's tool is offered to the model")
	}
	r.final()
}
