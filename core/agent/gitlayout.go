package agent

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// gitLayout is where git keeps a checkout's repository, read from the same
// files git reads, without running git: the guard decides on every write,
// and nothing a repository names may run because of it. In a linked
// worktree (git worktree add, pi-tui's worktree sessions) .git is a file
// naming the worktree's own git dir, whose commondir file names the
// repository's, where the config and the hooks live.
type gitLayout struct {
	top    string   // the folder holding .git: the checkout's top
	gitDir string   // the checkout's own git dir (canonical)
	common string   // the repository's common git dir (canonical; gitDir outside linked worktrees)
	hooks  []string // the canonical folders core.hooksPath names, one per config file that sets it
}

// Bounds on what the guard reads of a repository's files. A .git file and
// a commondir file hold one path; a config larger than maxGitConfig is
// not read (its rules are then unknown, and the rules by name still hold).
const (
	maxGitPathFile = 8 << 10
	maxGitConfig   = 64 << 10
)

// readGitLayout finds the checkout holding root, as git does: the nearest
// .git at root or above it. ok is false outside a checkout, or when its
// .git is neither a folder nor a readable "gitdir:" file.
//
// Everything read is bounded and opened without blocking (fsutil), and
// only regular files are read: a .git file pointing at a hostile folder
// with a FIFO or a huge file for its config costs one refused open. What
// the files say can only add rules (more folders that ask); the rules by
// name and shape apply whatever they say.
func readGitLayout(root string) (l gitLayout, ok bool) {
	for dir := root; ; {
		dot := filepath.Join(dir, ".git")
		if fi, err := os.Stat(dot); err == nil {
			return layoutAt(dir, dot, fi)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return gitLayout{}, false
		}
		dir = parent
	}
}

func layoutAt(top, dot string, fi os.FileInfo) (gitLayout, bool) {
	l := gitLayout{top: top}
	switch {
	case fi.IsDir():
		l.gitDir = canonicalPath(dot)
	case fi.Mode().IsRegular():
		p, ok := readPathFile(dot, "gitdir:")
		if !ok {
			return gitLayout{}, false
		}
		l.gitDir = canonicalPath(relativeTo(top, p))
	default:
		return gitLayout{}, false
	}
	l.common = l.gitDir
	if p, ok := readPathFile(filepath.Join(l.gitDir, "commondir"), ""); ok {
		l.common = canonicalPath(relativeTo(l.gitDir, p))
	}
	config := readGitConfig(filepath.Join(l.common, "config"))
	l.addHooks(config)
	if v, set := gitConfigValue(config, "extensions", "worktreeConfig"); set && gitTrue(v) {
		// git reads the worktree's own config.worktree after the common
		// config; a hooksPath there moves this worktree's hooks.
		l.addHooks(readGitConfig(filepath.Join(l.gitDir, "config.worktree")))
	}
	return l, true
}

// addHooks adds the folder a config's core.hooksPath names. A relative
// path is relative to the checkout's top, where git runs hooks from.
func (l *gitLayout) addHooks(config string) {
	hooks, set := gitConfigValue(config, "core", "hooksPath")
	if !set || hooks == "" {
		return
	}
	if rest, ok := strings.CutPrefix(hooks, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return
		}
		hooks = filepath.Join(home, rest)
	}
	l.hooks = append(l.hooks, canonicalPath(relativeTo(l.top, hooks)))
}

// readPathFile reads a file git keeps one path in (.git: "gitdir: …",
// commondir: the bare path) and returns the path; ok is false when the
// file is missing, odd or holds no path.
func readPathFile(path, prefix string) (string, bool) {
	data, _, err := fsutil.ReadRegular(path, maxGitPathFile)
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	p, found := strings.CutPrefix(strings.TrimSpace(line), prefix)
	p = strings.TrimSpace(p)
	if !found || p == "" || strings.ContainsRune(p, 0) {
		return "", false
	}
	return p, true
}

// readGitConfig reads a git config file, "" when it is missing or odd.
func readGitConfig(path string) string {
	data, _, err := fsutil.ReadRegular(path, maxGitConfig)
	if err != nil {
		return ""
	}
	return string(data)
}

func relativeTo(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// canonicalPath resolves links where the path exists, so it compares with
// the canonical paths the tools write to.
func canonicalPath(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

// gitConfigValue finds the last value of section.key in the text of a git
// config file, as git reads it: section and key names ignore case, a key
// may follow its section's header on the same line, quotes are dropped
// and backslash escapes read, a comment (# or ;) outside quotes ends the
// value. A key without "=" is set with the value "" (true for a boolean).
// Subsections ([core "x"], [core.x]) are other sections.
func gitConfigValue(config, section, key string) (value string, set bool) {
	in := false
	for _, line := range strings.Split(config, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				in = false
				continue
			}
			in = strings.EqualFold(strings.TrimSpace(line[1:end]), section)
			line = strings.TrimSpace(line[end+1:])
		}
		if !in || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, hasValue := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !hasValue {
			k, _, _ = strings.Cut(k, "#")
			k, _, _ = strings.Cut(k, ";")
			k = strings.TrimSpace(k)
		}
		if !strings.EqualFold(k, key) {
			continue
		}
		value, set = "", true
		if hasValue {
			value = gitConfigText(v)
		}
	}
	return value, set
}

// gitConfigText reads a config value: quotes, escapes, a trailing comment.
// Spaces outside quotes are kept between words only, as git keeps them.
func gitConfigText(v string) string {
	var b strings.Builder
	quoted := false
	pending := "" // unquoted spaces, kept only if more text follows
	put := func(c byte) {
		if b.Len() > 0 {
			b.WriteString(pending)
		}
		pending = ""
		b.WriteByte(c)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				put('\n')
			case 't':
				put('\t')
			case 'b':
				put('\b')
			default:
				put(v[i])
			}
		case c == '"':
			quoted = !quoted
		case !quoted && (c == '#' || c == ';'):
			return b.String()
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			pending += string(c)
		default:
			put(c)
		}
	}
	return b.String()
}

// gitTrue reads a git boolean: a bare key, true, yes, on or 1.
func gitTrue(v string) bool {
	switch strings.ToLower(v) {
	case "", "true", "yes", "on", "1":
		return true
	}
	return false
}
