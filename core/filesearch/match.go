package filesearch

import "strings"

// Match is one path that matches what was typed.
type Match struct {
	Path  string
	Score int
}

// Matcher finds the best paths of a List for text typed one key at a
// time. A path matches when the typed letters appear in it in order
// (case ignored for ASCII); paths whose base name holds the text score
// highest, then paths holding it as one run, then base names and paths
// holding the letters apart, with runs and word starts scoring more; ties
// go to the shorter path. Each query remembers the paths it matched, so a
// query that extends the last one (the next key typed) looks only at
// those: a keystroke costs what the surviving paths cost, not the project.
type Matcher struct {
	l     *List
	query string
	cand  []int32 // indices of the paths matching query
	all   bool    // cand is every path (query "")
}

// NewMatcher returns a matcher over l.
func NewMatcher(l *List) *Matcher { return &Matcher{l: l, all: true} }

// List returns the list matched against.
func (m *Matcher) List() *List { return m.l }

// Top returns the n best matches for query, best first, and how many
// paths match in all.
func (m *Matcher) Top(query string, n int) ([]Match, int) {
	q := lowerASCII(query)
	top := make([]Match, 0, n)
	if m.all || !strings.HasPrefix(q, m.query) {
		m.cand = m.cand[:0]
		for i := range m.l.Paths {
			top = m.consider(int32(i), q, top, n)
		}
	} else {
		kept := m.cand[:0]
		for _, i := range m.cand {
			if s, ok := score(m.l.lower[i], int(m.l.base[i]), q); ok {
				kept = append(kept, i)
				top = insertTop(top, Match{Path: m.l.Paths[i], Score: s}, n)
			}
		}
		m.cand = kept
	}
	m.query, m.all = q, q == ""
	return top, len(m.cand)
}

// consider scores path i during a full scan.
func (m *Matcher) consider(i int32, q string, top []Match, n int) []Match {
	s, ok := score(m.l.lower[i], int(m.l.base[i]), q)
	if !ok {
		return top
	}
	m.cand = append(m.cand, i)
	return insertTop(top, Match{Path: m.l.Paths[i], Score: s}, n)
}

// better orders matches: higher score, then shorter path, then by path.
func better(a, b Match) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if len(a.Path) != len(b.Path) {
		return len(a.Path) < len(b.Path)
	}
	return a.Path < b.Path
}

// insertTop keeps top sorted best first and at most n long.
func insertTop(top []Match, x Match, n int) []Match {
	if n <= 0 {
		return top
	}
	if len(top) == n && !better(x, top[n-1]) {
		return top
	}
	i := len(top)
	for i > 0 && better(x, top[i-1]) {
		i--
	}
	if len(top) < n {
		top = append(top, Match{})
	}
	copy(top[i+1:], top[i:len(top)-1])
	top[i] = x
	return top
}

// Score bands: the text in the base name, the text as one run in the
// path, the letters apart in the base name, the letters apart in the path.
const (
	bandBaseRun = 3000
	bandPathRun = 2000
	bandBase    = 1000
)

// score rates lowered path p (base name from offset b) for lowered query
// q; ok is false when q's letters are not all in p in order.
func score(p string, b int, q string) (int, bool) {
	if q == "" {
		return 0, true
	}
	if !subsequence(p, q) {
		return 0, false
	}
	base := p[b:]
	if i := strings.Index(base, q); i >= 0 {
		s := bandBaseRun + 10*len(q)
		switch {
		case len(q) == len(base):
			s += 300
		case i == 0:
			s += 200
		case boundary(base[i-1]):
			s += 100
		}
		return s, true
	}
	if i := strings.Index(p, q); i >= 0 {
		s := bandPathRun + 10*len(q)
		if i == 0 || boundary(p[i-1]) {
			s += 100
		}
		return s, true
	}
	if subsequence(base, q) {
		return bandBase + spread(base, q), true
	}
	return spread(p, q), true
}

// subsequence reports whether q's bytes appear in p in order.
func subsequence(p, q string) bool {
	for j := 0; j < len(q); j++ {
		k := strings.IndexByte(p, q[j])
		if k < 0 {
			return false
		}
		p = p[k+1:]
	}
	return true
}

// spread scores letters matched apart (greedily, leftmost): runs and word
// starts earn points, gaps cost them; the result stays within a band.
func spread(p, q string) int {
	s, last := 0, -2
	at := 0
	for j := 0; j < len(q); j++ {
		k := strings.IndexByte(p[at:], q[j])
		if k < 0 {
			return 0
		}
		k += at
		switch {
		case k == last+1:
			s += 15
		case k == 0 || boundary(p[k-1]):
			s += 10
		default:
			s -= min(k-last-1, 5)
		}
		last, at = k, k+1
	}
	return max(min(s+100, bandBase-1), 0)
}

// boundary reports whether a word starts after c.
func boundary(c byte) bool {
	switch c {
	case '/', '_', '-', '.', ' ':
		return true
	}
	return false
}
