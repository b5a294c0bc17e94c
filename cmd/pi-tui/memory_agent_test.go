package main

import (
	"strings"
	"testing"
)

func TestMemoryAgentWritesSwitch(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := mkdir(t, t.TempDir(), "api")
	c.ok("projects", "add", dir, "--trust")
	if out := c.ok("memory", "agent-writes", "api"); out != "agent writes to the memory of api: off\n" {
		t.Errorf("default: %q", out)
	}
	if out := c.ok("memory", "agent-writes", "api", "on"); out != "agent writes to the memory of api: on\n" {
		t.Errorf("on: %q", out)
	}
	if out := c.ok("memory", "agent-writes", "api"); !strings.HasSuffix(out, ": on\n") {
		t.Errorf("after on: %q", out)
	}
	// Untrusted: the switch is kept, and the user is told it has no effect.
	c.ok("projects", "untrust", "api")
	code, out, errs := c.run("", "memory", "agent-writes", "api")
	if code != 0 || !strings.HasSuffix(out, ": on\n") || !strings.Contains(errs, "api is not trusted, so its agent gets no remember tool") {
		t.Errorf("untrusted: %d %q %q", code, out, errs)
	}
	c.ok("memory", "agent-writes", "api", "off")
	if out := c.ok("memory", "agent-writes", "api"); !strings.HasSuffix(out, ": off\n") {
		t.Errorf("after off: %q", out)
	}
	c.fails(2, `"maybe" is neither on nor off`, "memory", "agent-writes", "api", "maybe")
	c.fails(2, "needs PROJECT", "memory", "agent-writes")
	if out := c.ok("memory", "agent-writes", "--help"); !strings.Contains(out, "Example:") {
		t.Errorf("help: %q", out)
	}
}

// The agent's mark survives `memory show --json` piped into `memory set`.
func TestMemoryShowSetKeepsTheAgentMark(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := mkdir(t, t.TempDir(), "api")
	c.ok("projects", "add", dir)
	if code, _, errs := c.run(`[{"content":"mine"},{"content":"agent's","by":"agent"}]`, "memory", "set", "api", "--file", "-"); code != 0 {
		t.Fatalf("set: %s", errs)
	}
	shown := c.ok("memory", "show", "--json", "api")
	if strings.Count(shown, `"by": "agent"`) != 1 {
		t.Fatalf("show --json:\n%s", shown)
	}
	if code, _, errs := c.run(shown, "memory", "set", "api", "--file", "-"); code != 0 {
		t.Fatalf("set what show printed: %s", errs)
	}
	if again := c.ok("memory", "show", "--json", "api"); strings.Count(again, `"by": "agent"`) != 1 {
		t.Errorf("after the round trip:\n%s", again)
	}
}
