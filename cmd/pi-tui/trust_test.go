package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI's trust is pi's trust.json: trust/untrust write it, a decision
// pi made shows in `projects list --json`, and a broken file is one
// warning naming the file and the position.
func TestProjectsTrustIsPisTrustJSON(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	base := mkdir(t, c.env["HOME"], "src")
	api := mkdir(t, base, "api")
	base, _ = filepath.EvalSymlinks(base)
	api, _ = filepath.EvalSymlinks(api)
	trustFile := filepath.Join(c.env["HOME"], ".pi", "agent", "trust.json")
	c.ok("projects", "add", api)
	trusted := func() bool {
		var list []map[string]any
		if err := json.Unmarshal([]byte(c.ok("projects", "list", "--json")), &list); err != nil || len(list) != 1 {
			t.Fatalf("list = %v %v", list, err)
		}
		return list[0]["trusted"] == true
	}
	if trusted() {
		t.Fatal("trusted without a decision")
	}
	writeFile(t, trustFile, fmt.Sprintf("{\n  %q: true\n}\n", base)) // pi: trust the parent folder
	if !trusted() {
		t.Error("a parent trusted in pi is not trusted in pi-tui")
	}
	if out := c.ok("projects", "untrust", "api"); !strings.Contains(out, "untrusted") {
		t.Errorf("untrust said %q", out)
	}
	data, _ := os.ReadFile(trustFile)
	if want := fmt.Sprintf("{\n  %q: true,\n  %q: false\n}\n", base, api); string(data) != want {
		t.Errorf("trust.json = %q, want %q", data, want)
	}
	if trusted() {
		t.Error("the child's false did not beat the parent's true")
	}
	writeFile(t, trustFile, "{\n  \"/x\": yes\n}\n")
	code, _, errs := c.run("", "projects", "list")
	if code != 0 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, trustFile+" is not valid JSON at line 2, column 9") {
		t.Errorf("broken trust.json: exit %d, stderr %q", code, errs)
	}
	c.fails(1, "fix it by hand", "projects", "trust", "api")
}
