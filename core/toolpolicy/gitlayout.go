package toolpolicy

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
	// includes are the canonical files the config includes (include.path,
	// includeIf.*.path), read or not: git reads each as configuration, so
	// one in the project runs code on use like .git/config.
	includes []string
}

// Bounds on what the guard reads of a repository's files. A .git file and
// a commondir file hold one path; a config file larger than maxGitConfig
// is not read (its rules are then unknown, and the rules by name still
// hold). Includes are followed maxIncludeDepth levels deep, git's own
// limit (git refuses a deeper config), and at most maxConfigFiles files
// are read for one layout, so a config including itself or fanning out
// costs a bounded number of reads.
const (
	maxGitPathFile  = 8 << 10
	maxGitConfig    = 64 << 10
	maxIncludeDepth = 10
	maxConfigFiles  = 32
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
	if p, ok := readCommondir(l.gitDir); ok {
		l.common = canonicalPath(p)
	}
	r := configReader{layout: &l, budget: maxConfigFiles}
	r.read(filepath.Join(l.common, "config"), 0)
	if r.worktreeConfig {
		// git reads the worktree's own config.worktree after the common
		// config; a hooksPath there moves this worktree's hooks.
		r.read(filepath.Join(l.gitDir, "config.worktree"), 0)
	}
	l.addCheckoutCopies()
	return l, true
}

// configReader reads one layout's config files and the files they
// include, into the layout's hooks and includes.
type configReader struct {
	layout *gitLayout
	budget int // config files still to read
	// worktreeConfig is set when any file read sets
	// extensions.worktreeConfig true: taking any, not only the last, can
	// only add config.worktree's rules.
	worktreeConfig bool
}

// read reads the config file at path (as git names it: relative includes
// are relative to its folder), depth levels of includes down.
func (r *configReader) read(path string, depth int) {
	if r.budget <= 0 {
		return
	}
	r.budget--
	data, _, err := fsutil.ReadRegular(path, maxGitConfig)
	if err != nil {
		return
	}
	hooks, hooksSet := "", false
	for _, e := range parseGitConfig(string(data)) {
		switch {
		case e.is("core", "hookspath"):
			hooks, hooksSet = e.value, true
		case e.is("extensions", "worktreeconfig"):
			r.worktreeConfig = r.worktreeConfig || gitTrue(e.value)
		case e.include() && e.hasValue && e.value != "":
			target, ok := expandHome(e.value)
			if !ok {
				continue
			}
			if !filepath.IsAbs(target) {
				// Joined as git joins it, and left for the kernel to
				// resolve: the including file's folder (the folder of the
				// name it was opened by, a link's own folder), then the
				// path as written, ".." after a link and all.
				target = path[:strings.LastIndexByte(path, filepath.Separator)+1] + target
			}
			r.layout.includes = append(r.layout.includes, canonicalPath(target))
			if depth < maxIncludeDepth {
				r.read(target, depth+1)
			}
		}
	}
	if hooksSet {
		r.layout.addHooks(hooks)
	}
}

// addCheckoutCopies makes an include target inside the main checkout also
// count at the same place in a linked worktree: it is a file of the
// project there too (devtools/git.cfg, tracked), which the worktree's
// branch brings into the main checkout, where git reads it. A worktree so
// asks before the same writes as its main checkout.
func (l *gitLayout) addCheckoutCopies() {
	if filepath.Base(l.common) != ".git" {
		return // a bare repository: no main checkout
	}
	mainTop := filepath.Dir(l.common)
	if mainTop == l.top {
		return
	}
	for _, inc := range l.includes {
		if rel, err := filepath.Rel(mainTop, inc); err == nil && fsutil.Within(mainTop, inc) {
			l.includes = append(l.includes, canonicalPath(filepath.Join(l.top, rel)))
		}
	}
}

// addHooks adds the folder a config's core.hooksPath names. A relative
// path is relative to the checkout's top, where git runs hooks from.
func (l *gitLayout) addHooks(hooks string) {
	if hooks == "" {
		return
	}
	hooks, ok := expandHome(hooks)
	if !ok {
		return
	}
	l.hooks = append(l.hooks, canonicalPath(relativeTo(l.top, hooks)))
}

// expandHome expands a leading "~/" as git does in path values; ok is
// false when the home folder is unknown.
func expandHome(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "~/")
	if !ok {
		return p, true
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", false
	}
	return strings.TrimSuffix(home, string(filepath.Separator)) + string(filepath.Separator) + rest, true
}

// readPathFile reads a file git keeps one path in after a prefix (.git:
// "gitdir: …") and returns the path; ok is false when the file is
// missing, odd or holds no path.
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

// readCommondir reads the commondir file of the git dir gitDir as git
// does (setup.c, get_common_dir_noenv): the whole file but the line
// breaks at its end, up to a NUL (git takes it as a C string), relative
// to gitDir unless absolute, joined as written for the kernel to resolve.
// ok is false when there is none, or git would stop at it (empty, not a
// regular file); a file longer than any path is none either.
func readCommondir(gitDir string) (string, bool) {
	data, _, err := fsutil.ReadRegular(filepath.Join(gitDir, "commondir"), maxGitPathFile)
	if err != nil || len(data) == 0 {
		return "", false
	}
	p, _, _ := strings.Cut(strings.TrimRight(string(data), "\r\n"), "\x00")
	if !filepath.IsAbs(p) {
		p = gitDir + string(filepath.Separator) + p
	}
	return p, true
}

func relativeTo(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// canonicalPath resolves links as the tools do (confine.Path), so it compares
// with the canonical paths they write to: the whole path when it exists,
// else its deepest existing folder, with the rest appended. A path that
// does not exist yet (a hooks folder, an include not written) so still
// matches a write through a linked folder above it.
func canonicalPath(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	rest := ""
	for cur := filepath.Clean(p); ; {
		parent := filepath.Dir(cur)
		if parent == cur {
			return filepath.Clean(p)
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
	}
}

// gitConfigValue finds the last value of section.key (section without a
// subsection) in the text of a git config file, as parseGitConfig reads it.
func gitConfigValue(config, section, key string) (value string, set bool) {
	section, key = strings.ToLower(section), strings.ToLower(key)
	for _, e := range parseGitConfig(config) {
		if e.is(section, key) {
			value, set = e.value, true
		}
	}
	return value, set
}

// gitConfigEntry is one variable of a git config file.
type gitConfigEntry struct {
	section  string // lower case, with the subsection after a dot: "core", "includeif.gitdir:x/"
	key      string // lower case
	value    string
	hasValue bool // false for a key without "=" (true as a boolean)
}

// is reports whether e is section.key (both lower case; section without
// a subsection).
func (e gitConfigEntry) is(section, key string) bool {
	return e.section == section && e.key == key
}

// include reports whether e names a file to include: include.path, or
// includeIf.<condition>.path with any condition, since whether it holds
// (gitdir, onbranch, hasconfig) is git's to decide at each command.
func (e gitConfigEntry) include() bool {
	return e.key == "path" && (e.section == "include" || strings.HasPrefix(e.section, "includeif."))
}

// parseGitConfig reads the variables of a git config file in order, as
// git reads them: a byte-order mark is skipped, CRLF is LF, comments (#
// or ;) run to the end of the line, section and key names ignore case
// ([section "sub"] keeps the subsection's case, [section.sub] does not),
// a key may follow its header on the same line, and a value drops its
// quotes, reads the escapes \n \t \b \\ \", joins a line ending in a
// backslash with the next (also inside quotes), and loses the unquoted
// spaces at its ends.
//
// Where git would refuse the file (a bad header, a key not starting with
// a letter, a quote left open) the reader drops that line and goes on:
// git then runs nothing, and reading on can only add rules. An unknown
// escape reads as the character escaped, for the same reason.
func parseGitConfig(text string) []gitConfigEntry {
	s := configScanner{text: strings.TrimPrefix(text, "\ufeff")}
	var out []gitConfigEntry
	section := ""
	for !s.done() {
		c := s.next()
		switch {
		case isConfigSpace(c):
		case c == '#' || c == ';':
			s.skipLine()
		case c == '[':
			var ok bool
			if section, ok = s.header(); !ok {
				section = ""
				s.skipLine()
			}
		case isASCIILetter(c):
			e, ok := s.variable(c)
			if !ok {
				s.skipLine()
				continue
			}
			if section != "" {
				e.section = section
				out = append(out, e)
			}
		default:
			s.skipLine()
		}
	}
	return out
}

// configScanner reads a config text a character at a time, as git does:
// "\r\n" reads as '\n', and the end of the text as a last '\n'.
type configScanner struct {
	text string
	i    int
	last byte // the character next returned last
}

func (s *configScanner) done() bool { return s.i >= len(s.text) }

func (s *configScanner) next() byte {
	c := byte('\n')
	if s.i < len(s.text) {
		c = s.text[s.i]
		s.i++
		if c == '\r' && s.i < len(s.text) && s.text[s.i] == '\n' {
			c = '\n'
			s.i++
		}
	}
	s.last = c
	return c
}

// skipLine skips to the start of the next line, unless the line's end
// was just read.
func (s *configScanner) skipLine() {
	for s.last != '\n' {
		s.next()
	}
}

// header reads a section header after its '[': the section's name, lower
// case, with a quoted subsection after a dot as written.
func (s *configScanner) header() (string, bool) {
	var b strings.Builder
	for {
		c := s.next()
		switch {
		case c == ']':
			return b.String(), b.Len() > 0
		case isConfigSpace(c) && c != '\n' && b.Len() > 0:
			return s.subsection(&b)
		case isKeyChar(c) || c == '.':
			b.WriteByte(lowerASCII(c))
		default:
			return "", false
		}
	}
}

// subsection reads ` "sub"]` after a section's name.
func (s *configScanner) subsection(b *strings.Builder) (string, bool) {
	c := s.next()
	for isConfigSpace(c) && c != '\n' {
		c = s.next()
	}
	if c != '"' {
		return "", false
	}
	b.WriteByte('.')
	for {
		c = s.next()
		if c == '\\' {
			c = s.next()
		}
		switch c {
		case '\n':
			return "", false
		case '"':
			return b.String(), s.next() == ']'
		}
		b.WriteByte(c)
	}
}

// variable reads a "key = value" line from its first letter c.
func (s *configScanner) variable(c byte) (gitConfigEntry, bool) {
	var key strings.Builder
	for isKeyChar(c) {
		key.WriteByte(lowerASCII(c))
		c = s.next()
	}
	for c == ' ' || c == '\t' {
		c = s.next()
	}
	e := gitConfigEntry{key: key.String()}
	switch c {
	case '\n':
		return e, true
	case '=':
		var ok bool
		e.value, ok = s.value()
		e.hasValue = true
		return e, ok
	}
	return e, false
}

// value reads a value after its '=', to the end of its (joined) lines.
func (s *configScanner) value() (string, bool) {
	var b []byte
	quoted := false
	trim := -1 // where unquoted spaces at the end began, -1 if none
	for {
		c := s.next()
		switch {
		case c == '\n':
			if quoted {
				return "", false
			}
			if trim >= 0 {
				b = b[:trim]
			}
			return string(b), true
		case !quoted && isConfigSpace(c):
			if trim < 0 {
				trim = len(b)
			}
			if len(b) > 0 {
				b = append(b, c)
			}
			continue
		case !quoted && (c == '#' || c == ';'):
			s.skipLine()
			if trim >= 0 {
				b = b[:trim]
			}
			return string(b), true
		}
		trim = -1
		switch c {
		case '\\':
			switch e := s.next(); e {
			case '\n': // a continued line
			case 'n':
				b = append(b, '\n')
			case 't':
				b = append(b, '\t')
			case 'b':
				b = append(b, '\b')
			default:
				b = append(b, e)
			}
		case '"':
			quoted = !quoted
		default:
			b = append(b, c)
		}
	}
}

// isConfigSpace is git's space in config files: space, tab, CR, LF.
func isConfigSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// isKeyChar: the characters of section and key names.
func isKeyChar(c byte) bool { return isASCIILetter(c) || c >= '0' && c <= '9' || c == '-' }

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// gitTrue reads a git boolean: a bare key, true, yes, on or 1.
func gitTrue(v string) bool {
	switch strings.ToLower(v) {
	case "", "true", "yes", "on", "1":
		return true
	}
	return false
}
