package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// helloExtension is a user's own pi extension: one tool, hello, that
// answers a fixed text.
const helloExtension = `export default function (pi: any) {
  pi.registerTool({
    name: "hello",
    label: "Hello",
    description: "Says hello from the user's extension.",
    parameters: { type: "object", properties: {} },
    async execute() {
      return { content: [{ type: "text", text: "HELLO-FROM-THE-USER-EXTENSION" }], details: {} };
    },
  });
}
`

// A user extension in <agent dir>/extensions loads into the real pi that
// pi-tui runs: its tool is offered to the model, and a call of it goes
// through pi-tui's approval gate by name (not a known read-only tool):
// headless it is denied (exit 3, nothing run), with --yes it runs and the
// model is sent its text.
func TestRealPiUserExtensionToolRunsThroughTheGate(t *testing.T) {
	c := realPiCLI(t)
	fake, _ := realPiProject(t, c, true, callsThenAnswer)
	writeFile(t, filepath.Join(c.env["HOME"], ".pi", "agent", "extensions", "hello.ts"), helloExtension)

	code, evs, errs := promptPi(t, c, "hello")
	if code != exitDenied || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "hello") {
		t.Fatalf("without --yes: exit %d, stderr %q; want 3 and one line naming hello", code, errs)
	}
	launchedPi(t, evs)
	reqs := fake.Requests()
	if len(reqs) == 0 || !strings.Contains(reqs[0].Raw, `"name":"hello"`) {
		t.Fatalf("the extension's tool is not offered to the model")
	}
	if res := lastResult(fake); strings.Contains(res, "HELLO-FROM-THE-USER-EXTENSION") || !strings.Contains(res, "needs approval") {
		t.Errorf("the denied hello call gave the model %q", res)
	}

	code, evs, errs = promptPi(t, c, "--yes", "hello")
	if code != 0 {
		t.Fatalf("with --yes: exit %d: %s", code, errs)
	}
	if ends := typed(evs, "tool_execution_end"); len(ends) != 1 || ends[0]["toolName"] != "hello" || ends[0]["isError"] == true {
		t.Errorf("with --yes hello ended %v", ends)
	}
	if res := lastResult(fake); !strings.Contains(res, "HELLO-FROM-THE-USER-EXTENSION") {
		t.Errorf("the model was not sent hello's text: %q", res)
	}
}
