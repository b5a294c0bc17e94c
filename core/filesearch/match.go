package filesearch

import "github.com/pi-tui/pi-tui/core/fuzzy"

// Match is one path that matches what was typed.
type Match struct {
	Path  string
	Score int
}

// Matcher finds the best paths of a List for text typed one key at a
// time, with core/fuzzy's matcher (the command palette's too): paths
// whose base name holds the text score highest, then paths holding it as
// one run, then base names and paths holding the letters apart, with runs
// and word starts scoring more; ties go to the shorter path. A query that
// extends the last one (the next key typed) looks only at the paths the
// last one matched: a keystroke costs what the surviving paths cost, not
// the project.
type Matcher struct {
	l *List
	m *fuzzy.Matcher
}

// NewMatcher returns a matcher over l.
func NewMatcher(l *List) *Matcher { return &Matcher{l: l, m: fuzzy.NewMatcher(l.texts)} }

// List returns the list matched against.
func (m *Matcher) List() *List { return m.l }

// Top returns the n best matches for query, best first, and how many
// paths match in all.
func (m *Matcher) Top(query string, n int) ([]Match, int) {
	top, total := m.m.Top(query, n)
	out := make([]Match, len(top))
	for i, t := range top {
		out[i] = Match{Path: m.l.Paths[t.Index], Score: t.Score}
	}
	return out, total
}
