package ui

import (
	"os/exec"
	"strings"
	"testing"
)

// The UI gets services from the host core, never the store (ui → core →
// store; docs/adr/0041-composition-root.md): no ui package imports the
// store package. go list reads the packages as the build sees them, test
// files aside.
func TestNoUIPackageImportsTheStore(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the ui packages: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./ui/...")
	cmd.Dir = ".." // the module root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const storePkg = "github.com/pi-tui/pi-tui/store"
	listed := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		listed++
		for _, imp := range fields[1:] {
			if imp == storePkg {
				t.Errorf("%s imports %s; take what it needs from the host core's services (core/host) instead", fields[0], storePkg)
			}
		}
	}
	if listed < 5 {
		t.Fatalf("go list named %d ui packages, expected the shell and its screens:\n%s", listed, out)
	}
}
