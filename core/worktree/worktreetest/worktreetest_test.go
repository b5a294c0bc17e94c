package worktreetest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// AddConfig writes what git config --add would: git reads the same keys
// and values from both files, shell commands with ; and # and quotes
// included.
func TestAddConfigIsGitConfigAdd(t *testing.T) {
	Need(t)
	dir := t.TempDir()
	kv := []string{
		"filter.evil.clean", "touch '/tmp/a b'; cat # not a comment",
		"filter.evil.smudge", `printf "%s\n" x\y`,
		"includeIf.onbranch:pi/**.path", "cond/onbranch.cfg",
		"includeIf.gitdir:**/worktrees/**.path", "cond/gitdir.cfg",
		"credential.helper", "!touch /tmp/c",
		"commit.gpgSign", "true",
		"filter.evil.clean", "second",
	}
	mine, theirs := filepath.Join(dir, "mine.cfg"), filepath.Join(dir, "theirs.cfg")
	AddConfig(t, mine, kv...)
	for i := 0; i < len(kv); i += 2 {
		Git(t, dir, "config", "--file", theirs, "--add", kv[i], kv[i+1])
	}
	// git config --add puts a key beside the others of its section; what
	// git reads is each key's values, in order.
	byKey := func(file string) map[string][]string {
		m := map[string][]string{}
		for _, e := range strings.Split(strings.TrimSuffix(Git(t, dir, "config", "--file", file, "--list", "-z"), "\x00"), "\x00") {
			k, v, _ := strings.Cut(e, "\n")
			m[k] = append(m[k], v)
		}
		return m
	}
	if got, want := byKey(mine), byKey(theirs); !reflect.DeepEqual(got, want) || len(got) != 6 {
		t.Errorf("git reads\n%q\nfrom AddConfig's file, and\n%q\nfrom git config --add's", got, want)
	}
}

// A repository made by Init is one git init makes: on branch main, with
// git's own config, and ready for a first commit.
func TestInitIsGitInit(t *testing.T) {
	Need(t)
	base := t.TempDir()
	mine, theirs := filepath.Join(base, "mine"), filepath.Join(base, "theirs")
	for _, d := range []string{mine, theirs} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	Init(t, mine)
	Git(t, theirs, "init", "-q", "-b", "main")
	for _, args := range [][]string{{"symbolic-ref", "HEAD"}, {"config", "--list", "--local"}, {"status", "--porcelain", "--branch"}} {
		if got, want := Git(t, mine, args...), Git(t, theirs, args...); got != want {
			t.Errorf("git %v: %q after Init, %q after git init", args, got, want)
		}
	}
	Write(t, mine, "a.txt", "a\n")
	Git(t, mine, "add", "-A")
	Git(t, mine, "commit", "-q", "-m", "first")
	if got := Git(t, mine, "log", "--format=%s", "main"); got != "first\n" {
		t.Errorf("main after a first commit: %q", got)
	}
}
