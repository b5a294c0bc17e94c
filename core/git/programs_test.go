package git

import (
	"slices"
	"strings"
	"testing"
)

func kv(scope, origin, key, value string) entry {
	return entry{scope: scope, origin: origin, key: key, value: value}
}

func TestOverrides(t *testing.T) {
	entries := []entry{
		kv("global", "/home/u/.gitconfig", "filter.lfs.smudge", "git-lfs smudge -- %f"),
		kv("global", "/home/u/.gitconfig", "credential.helper", "cache"),
		kv("global", "/home/u/.gitconfig", "credential.helper", "store"),
		kv("local", "/r/.git/config", "filter.lfs.smudge", "evil"),
		kv("local", "/r/.git/config", "filter.Crypt.smudge", "crypt smudge"),
		kv("local", "/r/.git/config", "filter.Crypt.required", "true"),
		kv("local", "/r/.git/config", "credential.helper", "!evil"),
		kv("worktree", "/r/.git/config.worktree", "gpg.ssh.program", "evil-ssh"),
		kv("local", "/r/.git/config", "core.gitproxy", "evil for example.com"),
		kv("local", "/r/.git/config", "remote.origin.uploadpack", "evil"),
		kv("local", "/r/.git/config", "user.name", "not a program"),
		kv("command", "", "diff.evil.textconv", "ours"),
	}
	args, withheld, err := overrides(entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(args, " ")
	want := "-c filter.lfs.smudge=git-lfs smudge -- %f -c filter.Crypt.smudge= -c credential.helper= -c credential.helper=cache -c credential.helper=store " +
		"-c gpg.ssh.program= -c commit.gpgSign=false -c tag.gpgSign=false -c protocol.git.allow=never -c protocol.file.allow=never -c protocol.ssh.allow=never"
	if got != want {
		t.Errorf("overrides:\n got %s\nwant %s", got, want)
	}
	var keys []string
	for _, p := range withheld {
		keys = append(keys, p.Key)
		if p.Key == "filter.Crypt.smudge" && (!p.Required || p.Origin != "/r/.git/config" || p.Value != "crypt smudge") {
			t.Errorf("withheld filter: %+v", p)
		}
	}
	if !slices.Equal(keys, []string{"filter.Crypt.smudge", "gpg.ssh.program", "remote.origin.uploadpack", "core.gitproxy"}) {
		t.Errorf("withheld %v", keys)
	}
}

// A section name git cannot take on its command line is refused, not
// passed on as another key.
func TestOverridesRefuseAnEqualsSign(t *testing.T) {
	_, _, err := overrides([]entry{kv("local", "/r/.git/config", "filter.a=b.smudge", "evil")}, nil)
	if err == nil || !strings.Contains(err.Error(), "filter.a=b.smudge") {
		t.Errorf("err = %v", err)
	}
}

// A git without --show-scope: only the user's known files are theirs;
// a file they include counts as the repository's (its program withheld).
func TestOverridesWithoutScopes(t *testing.T) {
	user := map[string]bool{"/home/u/.gitconfig": true}
	entries := []entry{
		kv("", "/home/u/.gitconfig", "filter.a.smudge", "mine"),
		kv("", "/home/u/work.inc", "filter.b.smudge", "included by the user"),
		kv("", "/r/.git/config", "filter.a.smudge", "evil"),
		kv("", "", "filter.c.smudge", "given with -c"),
	}
	args, _, _ := overrides(entries, user)
	if got := strings.Join(args, " "); got != "-c filter.b.smudge= -c filter.a.smudge=mine" {
		t.Errorf("overrides = %s", got)
	}
}

func TestParseList(t *testing.T) {
	out := "global\x00file:/h/.gitconfig\x00user.name\nMe\x00local\x00file:.git/config\x00filter.x.required\x00local\x00file:.git/inc\x00a.b\nline1\nline2\x00"
	got := parseList(out, "/r", true)
	want := []entry{
		{scope: "global", origin: "/h/.gitconfig", key: "user.name", value: "Me"},
		{scope: "local", origin: "/r/.git/config", key: "filter.x.required", bare: true},
		{scope: "local", origin: "/r/.git/inc", key: "a.b", value: "line1\nline2"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("parseList = %+v", got)
	}
	if !isTrue(got, "filter.x.required") {
		t.Error("a bare boolean is not true")
	}
}

func TestConfigFilesFollowIncludes(t *testing.T) {
	entries := []entry{
		kv("local", "/r/.git/config", "include.path", "extra.cfg"),
		kv("local", "/r/.git/config", "includeif.gitdir:/r/.path", "~/more.cfg"),
		kv("local", "/r/.git/extra.cfg", "include.path", "/abs/last.cfg"),
	}
	got := configFiles(entries, "/home/u")
	if !slices.Equal(got, []string{"/r/.git/config", "/r/.git/extra.cfg", "/home/u/more.cfg", "/abs/last.cfg"}) {
		t.Errorf("configFiles = %v", got)
	}
}

// FuzzOverrides feeds arbitrary config listings through the parser and
// the override rule: no panic, and every override is a -c pair of a key
// that names a program (or the fixed consequences of one).
func FuzzOverrides(f *testing.F) {
	f.Add("local\x00file:.git/config\x00filter.x.smudge\nevil\x00")
	f.Add("\x00\x00\x00")
	f.Add("local\x00file:\x00.\n\x00worktree\x00file:a\x00gpg.program")
	f.Fuzz(func(t *testing.T, out string) {
		args, _, err := overrides(parseList(out, "/r", true), nil)
		if err != nil {
			return
		}
		if len(args)%2 != 0 {
			t.Fatalf("odd overrides %q", args)
		}
		for i := 0; i < len(args); i += 2 {
			k, _, _ := strings.Cut(args[i+1], "=")
			_, ok := programRule(k)
			if args[i] != "-c" || !ok && !slices.Contains([]string{"commit.gpgSign", "tag.gpgSign", "protocol.git.allow"}, k) {
				t.Fatalf("override %q %q", args[i], args[i+1])
			}
		}
	})
}
