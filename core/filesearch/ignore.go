package filesearch

import (
	"path"
	"strings"
)

// A subset of gitignore(5) that is exact for what it covers: blank lines
// and "#" comments, "\#" and "\!" escapes, trailing spaces, "!" negation,
// a trailing "/" for directories only, a slash at the start or in the
// middle anchoring the pattern to the .gitignore's folder, and the globs
// "*", "?", "[...]" and "**" (any number of folders). The last matching
// pattern wins; a file inside an ignored folder stays ignored because the
// walk never enters that folder, as git does.

type rule struct {
	base     string   // the .gitignore's folder, relative to the root ("" for the root)
	segs     []string // the pattern split at "/"; one segment when not anchored
	anchored bool
	negate   bool
	dirOnly  bool
}

// parseIgnore reads one .gitignore in folder base.
func parseIgnore(base, text string) []rule {
	var out []rule
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		line = trimTrailingSpaces(line)
		if line == "" || line[0] == '#' {
			continue
		}
		r := rule{base: base}
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

// ignored reports whether rel (slash-separated, relative to the root) is
// ignored by rules, given in order from the root's file to the deepest.
func ignored(rules []rule, rel string, isDir bool) bool {
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
			hit = matchSegs(r.segs, strings.Split(sub, "/"))
		} else {
			hit = globMatch(r.segs[0], path.Base(sub))
		}
		if hit {
			out = !r.negate
		}
	}
	return out
}

// matchSegs matches path parts against pattern parts, "**" standing for
// any number of parts (zero included).
func matchSegs(pat, parts []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return true // "x/**" matches everything inside x
			}
			for k := 0; k <= len(parts); k++ {
				if matchSegs(pat[1:], parts[k:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 || !globMatch(pat[0], parts[0]) {
			return false
		}
		pat, parts = pat[1:], parts[1:]
	}
	return len(parts) == 0
}

// globMatch matches one part; a malformed pattern matches nothing, as git
// treats it.
func globMatch(pattern, name string) bool {
	if strings.Contains(pattern, "**") {
		pattern = strings.ReplaceAll(pattern, "**", "*")
	}
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}
