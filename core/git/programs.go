package git

import (
	"fmt"
	"strings"
)

// entry is one setting of `git config --list --show-scope --show-origin
// --includes -z`: where it came from and what it says.
type entry struct {
	scope  string // "system", "global", "local", "worktree", "command" ("" from a git without --show-scope)
	origin string // the file it was read from ("" when not a file)
	key    string // section and name lower case, subsection as written
	value  string
	bare   bool // "key" without "=": a boolean true
}

// Program is a program the repository's own config names that pi-tui's
// git calls do not run.
type Program struct {
	Key    string // "filter.crypt.smudge"
	Value  string // the command the config gives
	Origin string // the config file that says so
	// Required is set on a filter's program when the filter is required
	// (filter.<name>.required): git cannot do without it, so an operation
	// on a file that uses the filter stops instead.
	Required bool
}

func (p Program) String() string {
	return fmt.Sprintf("%s (%q, from %s)", p.Key, clip(p.Value, 60), p.Origin)
}

// rule says how a key naming a program is overridden.
type rule struct {
	// neutral is the value given when the user's own config has none: a
	// value under which git runs nothing (an empty filter or driver, no
	// editor) or only what it runs without any config (ssh,
	// git-upload-pack).
	neutral string
	// multi marks a list (credential helpers): an empty value empties it,
	// and the user's own values are then given again in order.
	multi bool
	// transport marks a remote's uploadpack and receivepack, which no
	// later setting overrides (git keeps the first): the local and ssh
	// transports, the only ones that run them, are refused instead.
	transport bool
}

// splitKey splits "filter.my.driver.smudge" into section, subsection and
// name; section and name are lower case in git's listing already.
func splitKey(key string) (section, sub, name string) {
	first := strings.IndexByte(key, '.')
	last := strings.LastIndexByte(key, '.')
	if first < 0 {
		return key, "", ""
	}
	if first == last {
		return key[:first], "", key[last+1:]
	}
	return key[:first], key[first+1 : last], key[last+1:]
}

// programRule finds the rule of a key that names a program git may run
// during what pi-tui does with git (worktree add, status, diff, add,
// commit, merge, merge --abort, worktree remove, rev-list, ls-files, and
// the fetch of missing objects a partial clone may need on any of them),
// or of a tool it does not run today (difftool, mergetool, trailers) so
// that the rule holds when it does. Keys pi-tui fixes for every call
// (core.fsmonitor, core.hooksPath, diff.external, core.pager, and the
// editors through GIT_EDITOR) are in hardened, not here. docs/adr lists
// them all with the reasons.
func programRule(key string) (rule, bool) {
	section, sub, name := splitKey(key)
	section, name = strings.ToLower(section), strings.ToLower(name)
	switch section {
	case "filter":
		if sub != "" && (name == "clean" || name == "smudge" || name == "process") {
			return rule{}, true
		}
	case "merge":
		if sub != "" && name == "driver" {
			return rule{}, true
		}
	case "diff":
		if sub != "" && (name == "textconv" || name == "command") {
			return rule{}, true
		}
	case "difftool", "mergetool":
		if sub != "" && (name == "cmd" || name == "path") {
			return rule{}, true
		}
	case "gpg":
		if name == "program" || (sub == "ssh" && name == "defaultkeycommand") {
			return rule{}, true
		}
	case "core":
		switch {
		case sub != "":
		case name == "sshcommand":
			return rule{neutral: "ssh"}, true
		case name == "askpass", name == "alternaterefscommand":
			return rule{}, true
		}
	case "credential":
		if name == "helper" {
			return rule{multi: true}, true
		}
	case "remote":
		switch {
		case sub == "":
		case name == "uploadpack", name == "receivepack":
			// git keeps the first value it reads of these and only
			// warns about later ones, so a -c cannot replace the
			// repository's: the transports that run them are refused.
			return rule{transport: true}, true
		case name == "vcs":
			return rule{}, true
		}
	case "protocol":
		// protocol.allow=always would let ext:: URLs run commands.
		if name == "allow" {
			return rule{neutral: "never"}, true
		}
	case "pager":
		if sub == "" && name != "" {
			return rule{neutral: "false"}, true
		}
	case "interactive":
		if sub == "" && name == "difffilter" {
			return rule{}, true
		}
	case "trailer":
		if sub != "" && (name == "command" || name == "cmd") {
			return rule{}, true
		}
	case "submodule":
		if sub != "" && name == "update" {
			return rule{neutral: "none"}, true
		}
	case "lfs":
		// git-lfs (a program of the user's own config) runs these.
		if strings.HasPrefix(sub, "customtransfer.") && name == "path" ||
			strings.HasPrefix(sub, "extension.") && (name == "clean" || name == "smudge") {
			return rule{}, true
		}
	}
	return rule{}, false
}

// fromRepository reports whether a setting comes from the repository's
// own config: its config, config.worktree, and what they include. A git
// without --show-scope (older than 2.26) gives no scope; then only the
// user's known global and system files count as the user's.
func fromRepository(e entry, userFiles map[string]bool) bool {
	switch e.scope {
	case "local", "worktree":
		return true
	case "":
		return e.origin != "" && !userFiles[e.origin]
	}
	return false
}

// overrides works out the -c settings that keep the repository's own
// config from naming a program: for every such key it sets, the user's
// own value when their global or system config has one (their choice
// stands), else a neutral one, listed in withheld. A key git cannot take
// on its command line (a subsection holding "=") is an error.
func overrides(entries []entry, userFiles map[string]bool) (args []string, withheld []Program, err error) {
	user := map[string][]string{}
	var repo []entry
	for _, e := range entries {
		switch {
		case e.scope == "command":
		case fromRepository(e, userFiles):
			repo = append(repo, e)
		default:
			user[e.key] = append(user[e.key], e.value)
		}
	}
	seen := map[string]bool{}
	set := func(k, v string) { args = append(args, "-c", k+"="+v) }
	gpgWithheld, gitProxy, transport := false, false, false
	for _, e := range repo {
		if e.key == "core.gitproxy" {
			gitProxy = true
			continue
		}
		r, ok := programRule(e.key)
		if !ok || seen[e.key] {
			continue
		}
		seen[e.key] = true
		if strings.ContainsRune(e.key, '=') {
			return nil, nil, fmt.Errorf("the repository's git config names a program under %s, a name git cannot override on its command line; pi-tui does not run git there: rename that section", e.key)
		}
		mine := user[e.key]
		switch {
		case r.transport && len(mine) > 0:
			// The user's value is read first, and git keeps it.
		case r.transport:
			transport = true
		case r.multi:
			set(e.key, "")
			for _, v := range mine {
				set(e.key, v)
			}
		case len(mine) > 0:
			set(e.key, mine[len(mine)-1])
		default:
			set(e.key, r.neutral)
		}
		if len(mine) == 0 {
			last := lastValue(repo, e.key)
			withheld = append(withheld, Program{Key: e.key, Value: last.value, Origin: last.origin})
			if section, _, _ := splitKey(e.key); section == "gpg" {
				gpgWithheld = true
			}
		}
	}
	if gpgWithheld {
		// Signing would run the program withheld: pi-tui's commits are
		// unsigned then.
		set("commit.gpgSign", "false")
		set("tag.gpgSign", "false")
	}
	if gitProxy {
		// The first core.gitProxy that matches wins, so one given on the
		// command line cannot override the repository's: no git://
		// transport at all instead.
		set("protocol.git.allow", "never")
		last := lastValue(repo, "core.gitproxy")
		withheld = append(withheld, Program{Key: "core.gitproxy", Value: last.value, Origin: last.origin})
	}
	if transport {
		// A remote's uploadpack or receivepack runs on this machine over
		// a local transport (file:// or a path) and on the other end of
		// ssh with the user's keys; pi-tui fetches and pushes over
		// neither in such a repository.
		set("protocol.file.allow", "never")
		set("protocol.ssh.allow", "never")
	}
	for i, p := range withheld {
		if section, sub, _ := splitKey(p.Key); section == "filter" {
			withheld[i].Required = isTrue(entries, "filter."+sub+".required")
		}
	}
	return args, withheld, nil
}

// lastValue is the setting of key that wins among entries.
func lastValue(entries []entry, key string) entry {
	var last entry
	for _, e := range entries {
		if e.key == key {
			last = e
		}
	}
	return last
}

// isTrue reads key as git reads a boolean: its last setting wins.
func isTrue(entries []entry, key string) bool {
	e := lastValue(entries, key)
	if e.key == "" {
		return false
	}
	if e.bare {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(e.value)) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

// parseList reads `git config --list --show-origin -z` output, with
// --show-scope when scoped: each setting is its scope, its origin and
// "key\nvalue" (or a bare "key"), each field ended by a NUL. Origins are
// made absolute against dir.
func parseList(out, dir string, scoped bool) []entry {
	fields := strings.Split(out, "\x00")
	per := 2
	if scoped {
		per = 3
	}
	var entries []entry
	for i := 0; i+per <= len(fields); i += per {
		var e entry
		f := fields[i:]
		if scoped {
			e.scope, f = f[0], f[1:]
		}
		if p, ok := strings.CutPrefix(f[0], "file:"); ok {
			e.origin = absFrom(dir, p)
		}
		k, v, ok := strings.Cut(f[1], "\n")
		e.key, e.value, e.bare = k, v, !ok
		entries = append(entries, e)
	}
	return entries
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
