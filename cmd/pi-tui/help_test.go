package main

import (
	"os"
	"path/filepath"
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

func TestHelpTopicsAndVersion(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	out := c.ok("help", "projects")
	for _, sub := range []string{"list", "add", "rename", "pin", "archive", "trust", "remove"} {
		if !strings.Contains(out, "Usage: pi-tui projects "+sub) {
			t.Errorf("help projects lacks %s:\n%s", sub, out)
		}
	}
	if strings.Contains(out, "memory set") {
		t.Errorf("help projects shows other commands:\n%s", out)
	}
	// The sentence about F is whole, not cut at a line break, and says
	// what plain text becomes (core/memory.ParseInput: one entry).
	if out := c.ok("memory", "set", "--help"); !strings.Contains(out, "or plain text, saved as one untitled entry; - reads standard input.") ||
		!strings.Contains(out, "--file F") {
		t.Errorf("memory set --help:\n%s", out)
	}
	if out := c.ok("sessions", "--help"); !strings.Contains(out, "Usage: pi-tui sessions list") {
		t.Errorf("sessions --help:\n%s", out)
	}
	if out := c.ok("projects", "--help"); !strings.Contains(out, "Usage: pi-tui projects add") {
		t.Errorf("projects --help:\n%s", out)
	}
	if out := c.ok("--version"); !strings.HasPrefix(out, "pi-tui ") || !strings.Contains(out, "commit") || strings.Count(out, "\n") != 1 {
		t.Errorf("--version = %q", out)
	}
	if out, want := c.ok("-v"), c.ok("--version"); out != want {
		t.Errorf("-v = %q, want %q", out, want)
	}
	if out := c.ok("help"); !strings.Contains(out, "3 prompt finished but tool calls needing approval were denied") {
		t.Errorf("help lacks the exit statuses:\n%s", out)
	}
	c.fails(2, `help: no command "frobnicate"`, "help", "frobnicate")
}

// A flag given an empty value is refused, not ignored.
func TestEmptyFlagValuesAreRefused(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := mkdir(t, t.TempDir(), "shop")
	c.fails(2, "projects add: --name is empty", "projects", "add", dir, "--name", "")
	c.fails(2, "projects add: --name is empty", "projects", "add", dir, "--name=  ")
	c.fails(2, "prompt: --model is empty", "prompt", "--model", "", "hi")
	if out := c.ok("projects", "list"); !strings.Contains(out, "No projects yet") {
		t.Errorf("a refused add registered something:\n%s", out)
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, sh := range []string{"bash", "zsh", "fish"} {
		if out := c.ok("completion", sh); !strings.Contains(out, "pi-tui __complete --") {
			t.Errorf("completion %s does not call back:\n%s", sh, out)
		}
	}
	c.fails(2, "completion needs one shell", "completion", "tcsh")
	dir := mkdir(t, t.TempDir(), "src")
	c.ok("projects", "add", mkdir(t, dir, "shop"), "--name", "shop")
	c.ok("projects", "add", mkdir(t, dir, "shed"), "--name", "shed")
	complete := func(words ...string) []string {
		t.Helper()
		return strings.Fields(c.ok(append([]string{"__complete", "--"}, words...)...))
	}
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{""}, "projects memory instructions prompt rpc sessions providers login logout mcp serve completion help"},
		{[]string{"pro"}, "projects prompt providers"},
		{[]string{"projects", "a"}, "add archive"},
		{[]string{"memory", "show", "sh"}, "shed shop"},
		{[]string{"--data-dir", c.env["PI_TUI_DATA_DIR"], "projects", "pin", "s"}, "shed shop"},
		{[]string{"memory", "show", "--"}, "--help --data-dir --agent-dir --json"},
		{[]string{"prompt", "--project", "sh"}, "shed shop"},
		{[]string{"prompt", "--thinking", "m"}, "minimal medium"},
		{[]string{"projects", "add", ""}, "__files__"},
		{[]string{"projects", "relocate", "s"}, "shed shop"},
		{[]string{"projects", "relocate", "shop", ""}, "__files__"},
		{[]string{"projects", "rename", "shop", ""}, ""},
		{[]string{"memory", "set", "shop", "--file", ""}, "__files__"},
		{[]string{"./"}, "__files__"},
		{[]string{"completion", ""}, "bash fish zsh"},
		{[]string{"help", "me"}, "memory"},
	} {
		if got := strings.Join(complete(tc.words...), " "); got != tc.want {
			t.Errorf("complete %q = %q, want %q", tc.words, got, tc.want)
		}
	}
}

// pi-tui PATH checks PATH before anything opens: a missing folder or a
// file is one line and exit 2; a word that is no command and no folder is
// still an unknown command.
func TestOpenPathMistakes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := t.TempDir()
	c.fails(2, "no such folder: "+dir+"/gone", dir+"/gone")
	c.fails(2, "no such folder: ./gone", "./gone")
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	c.fails(2, "is a file; pi-tui opens a folder", file)
	c.fails(2, "main.go is a file; pi-tui opens a folder", "main.go") // a bare word naming a file
	c.fails(2, `unknown command "frobnicate"`, "frobnicate")
	c.fails(2, `one too many`, dir, "extra")
	// Without a terminal an existing folder prints the help, as the bare
	// command does.
	if code, out, _ := c.run("", dir, "-c"); code != 0 || !strings.Contains(out, "pi-tui projects list") {
		t.Errorf("pi-tui DIR -c without a terminal = %d\n%s", code, out)
	}
}
