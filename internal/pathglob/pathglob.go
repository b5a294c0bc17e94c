// Package pathglob matches slash-separated paths against glob patterns in
// which "**" stands for any number of folders. Patterns come from places a
// hostile repository controls (.gitignore files) as well as from the user,
// so matching takes time proportional to the pattern's length times the
// path's, never more: a pattern of many "**" cannot stall a walk.
package pathglob

import (
	"path"
	"strings"
)

// Match reports whether the path parts match the pattern parts. A "**"
// part matches any number of parts, none included; any other part is a
// path.Match pattern for one name ("**" inside it counts as "*"). A
// malformed part matches nothing, as git treats it.
func Match(pat, parts []string) bool {
	// Runs of "**" are one "**".
	p := make([]string, 0, len(pat))
	for _, s := range pat {
		if s == "**" && len(p) > 0 && p[len(p)-1] == "**" {
			continue
		}
		p = append(p, s)
	}
	n, m := len(p), len(parts)
	// next[j] holds whether p[i+1:] matches parts[j:]; cur is row i.
	next := make([]bool, m+1)
	cur := make([]bool, m+1)
	next[m] = true // an empty pattern matches only the end
	for i := n - 1; i >= 0; i-- {
		if p[i] == "**" {
			cur[m] = next[m]
			for j := m - 1; j >= 0; j-- {
				cur[j] = next[j] || cur[j+1]
			}
		} else {
			cur[m] = false
			for j := m - 1; j >= 0; j-- {
				cur[j] = next[j+1] && name(p[i], parts[j])
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

// name matches one part.
func name(pattern, s string) bool {
	if strings.Contains(pattern, "**") {
		pattern = strings.ReplaceAll(pattern, "**", "*")
	}
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}
