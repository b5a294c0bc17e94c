package pathglob

import (
	"strings"
	"testing"
)

// naive is the obvious recursive matcher, exponential on many "**": the
// reference the fast one must agree with.
func naive(pat, parts []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for k := 0; k <= len(parts); k++ {
				if naive(pat[1:], parts[k:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 || !name(pat[0], parts[0]) {
			return false
		}
		pat, parts = pat[1:], parts[1:]
	}
	return len(parts) == 0
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pat, path string
		want      bool
	}{
		{"docs/**", "docs/a/b.md", true},
		{"docs/**", "docs", true},
		{"**/*.go", "a/b/c.go", true},
		{"**/*.go", "c.go", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"*.md", "a/b.md", false},
		{"[", "[", false}, // malformed: nothing
		{"a**b", "axxb", true},
	} {
		if got := Match(strings.Split(c.pat, "/"), strings.Split(c.path, "/")); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pat, c.path, got, c.want)
		}
	}
}

// A pattern of many "**" against a deep path answers at once (the naive
// matcher takes seconds here).
func TestManyDoubleStarsStayFast(t *testing.T) {
	pat := strings.Split(strings.Repeat("**/", 40)+"nomatch", "/")
	parts := strings.Split(strings.Repeat("d/", 60)+"f", "/")
	if Match(pat, parts) {
		t.Error("matched")
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("a/**/b", "a/x/b")
	f.Add("**/**/*.go", "x/y.go")
	f.Fuzz(func(t *testing.T, pat, p string) {
		ps, parts := strings.Split(pat, "/"), strings.Split(p, "/")
		if len(ps) > 8 || len(parts) > 8 {
			return // the naive reference is exponential
		}
		if got, want := Match(ps, parts), naive(ps, parts); got != want {
			t.Fatalf("Match(%q, %q) = %v, naive %v", pat, p, got, want)
		}
	})
}
