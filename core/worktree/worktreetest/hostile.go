package worktreetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// HostileAttributes are the .gitattributes lines that send the files of a
// Hostile repository through its programs: *.txt through the filter, diff
// and merge drivers of .git/config, *.inc through a filter of a file
// .git/config includes, *.wt through a filter of config.worktree, *.proc
// through a long-running filter process.
const HostileAttributes = "*.txt filter=evil diff=evil merge=evil\n*.inc filter=inc diff=inc\n*.wt filter=wt diff=wt\n*.proc filter=proc\n"

// Hostile writes into the repository at dir a config whose every program
// would leave a file in marks when run: filters (clean, smudge, process),
// a merge driver, textconv and diff commands, a signing program with
// signing on, ssh, askpass, credential helper and alternate-refs
// commands; some in a file the config includes, some in config.worktree.
// The repository's files must use them through HostileAttributes.
func Hostile(t testing.TB, dir, marks string) {
	t.Helper()
	if err := os.MkdirAll(marks, 0o755); err != nil {
		t.Fatal(err)
	}
	mark := func(name string) string { return "touch '" + filepath.Join(marks, name) + "'" }
	gpg := filepath.Join(marks, "..", "gpg-program")
	if err := os.WriteFile(gpg, []byte("#!/bin/sh\n"+mark("gpg")+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	common := strings.TrimSpace(Git(t, dir, "rev-parse", "--git-common-dir"))
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	cfg := func(file string, kv ...string) { AddConfig(t, file, kv...) }
	local := filepath.Join(common, "config")
	cfg(local,
		"filter.evil.clean", mark("clean")+"; cat", "filter.evil.smudge", mark("smudge")+"; cat",
		"filter.proc.process", mark("process"),
		"merge.evil.driver", mark("merge")+"; true",
		"diff.evil.textconv", mark("textconv")+"; cat", "diff.evil.command", mark("diffcmd"),
		"gpg.program", gpg, "commit.gpgSign", "true", "tag.gpgSign", "true",
		"core.sshCommand", mark("ssh"), "core.askPass", mark("askpass"),
		"core.alternateRefsCommand", mark("altrefs"), "credential.helper", "!"+mark("credential"),
		"include.path", "pi-included.cfg",
		"extensions.worktreeConfig", "true",
	)
	cfg(filepath.Join(common, "pi-included.cfg"),
		"filter.inc.clean", mark("inc-clean")+"; cat", "filter.inc.smudge", mark("inc-smudge")+"; cat",
		"diff.inc.textconv", mark("inc-textconv")+"; cat")
	cfg(filepath.Join(common, "config.worktree"),
		"filter.wt.clean", mark("wt-clean")+"; cat", "filter.wt.smudge", mark("wt-smudge")+"; cat",
		"diff.wt.textconv", mark("wt-textconv")+"; cat")
}

// NoMarks fails the test when a program of a Hostile repository ran.
func NoMarks(t testing.TB, marks string) {
	t.Helper()
	ents, err := os.ReadDir(marks)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("the repository's own config ran a program: %s", e.Name())
	}
}

// ConditionalAttributes are the .gitattributes lines that send files
// through the filters of HostileConditional: *.cond through the one an
// `onbranch:` include names, *.nest through one that file includes in
// turn, *.gd through the one a `gitdir:` include names.
const ConditionalAttributes = "*.cond filter=cond\n*.nest filter=nest\n*.gd filter=gd\n"

// HostileConditional adds to the config of the repository at dir
// conditional includes whose files name filters that leave a file in
// marks when run: one included only on a branch matching onbranch (a
// glob such as "pi/**"), including another by a path relative to itself,
// and one included only in a linked worktree (`gitdir:**/worktrees/**`).
// On the branch checked out when it is called, none of them holds.
func HostileConditional(t testing.TB, dir, marks, onbranch string) {
	t.Helper()
	if err := os.MkdirAll(marks, 0o755); err != nil {
		t.Fatal(err)
	}
	mark := func(name string) string { return "touch '" + filepath.Join(marks, name) + "'; cat" }
	common := strings.TrimSpace(Git(t, dir, "rev-parse", "--git-common-dir"))
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	if err := os.MkdirAll(filepath.Join(common, "cond"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := func(file string, kv ...string) { AddConfig(t, file, kv...) }
	cfg(filepath.Join(common, "config"),
		"includeIf.onbranch:"+onbranch+".path", "cond/onbranch.cfg",
		"includeIf.gitdir:**/worktrees/**.path", "cond/gitdir.cfg")
	cfg(filepath.Join(common, "cond", "onbranch.cfg"),
		"filter.cond.smudge", mark("cond-smudge"), "filter.cond.clean", mark("cond-clean"),
		"include.path", "nested.cfg")
	cfg(filepath.Join(common, "cond", "nested.cfg"),
		"filter.nest.smudge", mark("nest-smudge"), "filter.nest.clean", mark("nest-clean"))
	cfg(filepath.Join(common, "cond", "gitdir.cfg"),
		"filter.gd.smudge", mark("gd-smudge"), "filter.gd.clean", mark("gd-clean"))
}

// AddConfig appends keys and values (key, value, key, value …) to the git
// config file at file, as git config --file FILE --add KEY VALUE would one
// pair at a time, without a git process per pair: a key is
// section.name or section.subsection.name, and every value is written
// quoted, so that the ; and # of a shell command stay in it.
func AddConfig(t testing.TB, file string, kv ...string) {
	t.Helper()
	if len(kv)%2 != 0 {
		t.Fatalf("AddConfig: %d strings, want key and value pairs", len(kv))
	}
	var b strings.Builder
	for i := 0; i < len(kv); i += 2 {
		key := kv[i]
		first, last := strings.Index(key, "."), strings.LastIndex(key, ".")
		if first <= 0 || last == len(key)-1 {
			t.Fatalf("AddConfig: %q is not section[.subsection].name", key)
		}
		b.WriteString("[" + key[:first])
		if last > first {
			b.WriteString(" " + quoteConfig(key[first+1:last]))
		}
		b.WriteString("]\n\t" + key[last+1:] + " = " + quoteConfig(kv[i+1]) + "\n")
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.WriteString(b.String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// quoteConfig is s in double quotes, as git's config syntax reads a
// subsection or a value: backslash and double quote escaped.
func quoteConfig(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
