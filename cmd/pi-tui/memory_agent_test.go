package main

import (
	"strings"
	"testing"
)

func TestMemoryAgentWritesSwitch(t *testing.T) {
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
