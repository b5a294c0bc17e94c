// Package realpi finds the real pi for the interop tests that run it
// against pi-tui's files. The Go tests never need node: where pi is not
// installed, those tests are skipped with the reason Command gives.
package realpi

import (
	"os"
	"os/exec"
	"strings"
)

// Command returns the command that runs the real pi: $PISESSION_PI (a pi
// executable, or pi's dist/cli.js run with node), else pi on PATH. When
// there is none, argv is nil and skip says why and how to provide one.
func Command() (argv []string, skip string) {
	p := os.Getenv("PISESSION_PI")
	if p == "" {
		lp, err := exec.LookPath("pi")
		if err != nil {
			return nil, "the real pi is not installed (set PISESSION_PI to pi or its dist/cli.js to run this test; npm install @mariozechner/pi-coding-agent@0.73.1)"
		}
		p = lp
	}
	if strings.HasSuffix(p, ".js") {
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, "node is not installed, so pi's " + p + " cannot run"
		}
		return []string{node, p}, ""
	}
	return []string{p}, ""
}
