package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A write the real pi's model asks for goes through pi-tui's approvals:
// headless without --yes it is denied (exit 3, the stderr line naming
// write, no file, the model told), and with --yes it is done.
func TestRealPiWriteDeniedHeadlessDoneWithYes(t *testing.T) {
	c := realPiCLI(t)
	fake, root := realPiProject(t, c, true, callsThenAnswer)
	code, evs, errs := promptPi(t, c, "write notes.txt")
	if code != exitDenied || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "write") || !strings.Contains(errs, "--yes") {
		t.Fatalf("without --yes: exit %d, stderr %q; want 3 and one line naming write and --yes", code, errs)
	}
	launchedPi(t, evs)
	if _, err := os.Stat(filepath.Join(root, "notes.txt")); err == nil {
		t.Error("the denied write wrote")
	}
	if res := lastResult(fake); !strings.Contains(res, "needs approval") || !strings.Contains(res, "without --yes") {
		t.Errorf("the model was not told of the denial: %q", res)
	}

	code, evs, errs = promptPi(t, c, "--yes", "write notes.txt")
	if code != 0 {
		t.Fatalf("with --yes: exit %d: %s", code, errs)
	}
	if ends := typed(evs, "tool_execution_end"); len(ends) != 1 || ends[0]["isError"] == true {
		t.Errorf("with --yes the write ended %v", ends)
	}
	if b, err := os.ReadFile(filepath.Join(root, "notes.txt")); err != nil || string(b) != "noted" {
		t.Errorf("the approved write left %q, %v", b, err)
	}
}

// A read of ../outside/secret.txt is refused by the bridge before pi
// reads: the model's next request carries pi-tui's sentence and not the
// secret.
func TestRealPiReadOutsideTheRootRefused(t *testing.T) {
	c := realPiCLI(t)
	fake, root := realPiProject(t, c, true, callsThenAnswer)
	writeFile(t, filepath.Join(filepath.Dir(root), "outside", "secret.txt"), "SECRET-OUTSIDE")
	code, evs, errs := promptPi(t, c, "read ../outside/secret.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if ends := typed(evs, "tool_execution_end"); len(ends) != 1 || ends[0]["isError"] != true {
		t.Errorf("the outside read ended %v, want an error", ends)
	}
	res := lastResult(fake)
	if !strings.Contains(res, "is outside the project root") || !strings.Contains(res, "paths and links may not leave it") {
		t.Errorf("the model was not sent pi-tui's refusal: %q", res)
	}
	for _, req := range fake.Requests() {
		if strings.Contains(req.Raw, "SECRET-OUTSIDE") {
			t.Fatal("the file outside the root reached the model")
		}
	}
}
