package main

import (
	"strings"
	"testing"
)

// Every command's help says how to call it, lists each of its flags on a
// line of its own and ends with an example; -h, --help and help COMMAND
// agree, and all exit 0. Asking for help also checks that the flags the
// command parses are the ones its help documents.
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, cmd := range commands {
		words := strings.Fields(cmd.path)
		want := c.ok(append([]string{"help"}, words...)...)
		for _, ask := range []string{"--help", "-h"} {
			if got := c.ok(append(words, ask)...); got != want {
				t.Errorf("pi-tui %s %s:\n%s\nwant:\n%s", cmd.path, ask, got, want)
			}
		}
		if !strings.HasPrefix(want, "Usage: pi-tui "+cmd.path) || !strings.Contains(want, "\nExample:\n  ") || !strings.Contains(want, "pi-tui "+cmd.path) {
			t.Errorf("help %s lacks usage or example:\n%s", cmd.path, want)
		}
		for _, f := range cmd.flags {
			dash := "--"
			if len(f.name) == 1 {
				dash = "-" // a one-letter flag is written as -o
			}
			if !strings.Contains(want, "\n  "+dash+f.name+" ") {
				t.Errorf("help %s does not list --%s:\n%s", cmd.path, f.name, want)
			}
		}
	}
}
