// Package gitignore matches paths against .gitignore rules: the subset
// of gitignore(5) that the file list and the checkpoint walk need, exact
// for what it covers.
package gitignore

import (
	"path"
	"strings"

	"github.com/pi-tui/pi-tui/internal/pathglob"
)

// A subset of gitignore(5) that is exact for what it covers: blank lines
// and "#" comments, "\#" and "\!" escapes, trailing spaces, "!" negation,
// a trailing "/" for directories only, a slash at the start or in the
// middle anchoring the pattern to the .gitignore's folder, and the globs
// "*", "?", "[...]" and "**" (any number of folders). The last matching
// pattern wins; a file inside an ignored folder stays ignored because the
// walk never enters that folder, as git does.

// Rule is one pattern of a .gitignore file.
type Rule struct {
	base     string   // the .gitignore's folder, relative to the root ("" for the root)
	segs     []string // the pattern split at "/"; one segment when not anchored
	anchored bool
	negate   bool
	dirOnly  bool
}

// Parse reads one .gitignore in folder base (slash-separated, relative
// to the root; "" for the root).
func Parse(base, text string) []Rule {
	var out []Rule
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		line = trimTrailingSpaces(line)
		if line == "" || line[0] == '#' {
			continue
		}
		r := Rule{base: base}
		if line[0] == '!' {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		r.segs = strings.Split(line, "/")
		out = append(out, r)
	}
	return out
}

// trimTrailingSpaces drops trailing spaces unless escaped with a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// Ignored reports whether rel (slash-separated, relative to the root) is
// ignored by rules, given in order from the root's file to the deepest.
func Ignored(rules []Rule, rel string, isDir bool) bool {
	out := false
	for i := range rules {
		r := &rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		sub := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			sub = rel[len(r.base)+1:]
		}
		var hit bool
		if r.anchored {
			hit = pathglob.Match(r.segs, strings.Split(sub, "/"))
		} else {
			hit = pathglob.Match(r.segs[:1], []string{path.Base(sub)})
		}
		if hit {
			out = !r.negate
		}
	}
	return out
}
