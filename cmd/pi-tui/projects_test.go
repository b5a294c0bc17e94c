package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Adding the home folder or / lets the agent's file tools reach
// everything below it: without a terminal to ask, it takes a flag.
func TestProjectsAddBroadRootNeedsConfirmation(t *testing.T) {
	c := newCLI(t)
	home := c.env["HOME"]
	for _, path := range []string{home, "/", "~", filepath.Dir(home)} {
		c.fails(1, "the agent's file tools will reach everything below it; to add it anyway, pass --allow-broad-root", "projects", "add", path)
	}
	// The data dir lives under the agent's reach too when a project holds it.
	c.env["PI_TUI_DATA_DIR"] = filepath.Join(home, "work", "pi-data")
	c.fails(1, "pi-tui's data dir", "projects", "add", filepath.Join(home, "work"))
	if out := c.ok("projects", "list", "--all"); !strings.Contains(out, "No projects yet") {
		t.Fatalf("a refused add registered something:\n%s", out)
	}

	if out := c.ok("projects", "add", "~", "--allow-broad-root", "--name", "home"); !strings.Contains(out, "added home") {
		t.Errorf("with the flag: %s", out)
	}
	// Known already: nothing new is reached, nothing is asked.
	if out := c.ok("projects", "add", home); !strings.Contains(out, "already registered") {
		t.Errorf("re-add: %s", out)
	}
	// An ordinary folder asks nothing.
	c.ok("projects", "add", mkdir(t, home, "src", "api"))
}
