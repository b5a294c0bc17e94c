// Package fuzzy is pi-tui's one fuzzy matcher: `@` file completion
// (core/filesearch) and the command palette (ui/palette) rank with it, so
// the same letters find things in the same order in both.
//
// A text matches when the typed letters appear in it in order (case
// ignored for ASCII). Each text has a base: the part that names the thing
// (a file's base name; a session's title). Texts whose base holds the
// query as one run score highest, then texts holding it as one run
// anywhere, then bases and texts holding the letters apart, with runs and
// word starts scoring more; ties go to the shorter text.
package fuzzy

import "strings"

// Texts are texts prepared for matching: lowered once, with the byte
// offset of each one's base.
type Texts struct {
	texts []string
	lower []string // texts with ASCII letters lowered (texts itself when none is upper case)
	base  []int32
}

// Prepare readies texts for matching. base holds the byte offset where
// each text's base starts; nil means every text is all base.
func Prepare(texts []string, base []int32) *Texts {
	if base == nil {
		base = make([]int32, len(texts))
	}
	t := &Texts{texts: texts, lower: texts, base: base}
	for i, s := range texts {
		if hasUpper(s) {
			// Lowered copies only once one is needed: a checkout's paths
			// are mostly lower case, and then cost nothing more.
			t.lower = make([]string, len(texts))
			copy(t.lower, texts[:i])
			for j := i; j < len(texts); j++ {
				t.lower[j] = Lower(texts[j])
			}
			break
		}
	}
	return t
}

// Len is how many texts there are.
func (t *Texts) Len() int { return len(t.texts) }

// Text returns text i as given.
func (t *Texts) Text(i int) string { return t.texts[i] }

// Match is one text that matches what was typed: its index and score.
type Match struct {
	Index int
	Score int
}

// Matcher finds the best texts for a query typed one key at a time. Each
// query remembers the texts it matched, so a query that extends the last
// one (the next key typed) looks only at those: a keystroke costs what the
// surviving texts cost, not all of them.
type Matcher struct {
	t     *Texts
	query string
	cand  []int32 // indices of the texts matching query
	all   bool    // cand is every text (query "")
}

// NewMatcher returns a matcher over t.
func NewMatcher(t *Texts) *Matcher { return &Matcher{t: t, all: true} }

// Texts returns the texts matched against.
func (m *Matcher) Texts() *Texts { return m.t }

// Top returns the n best matches for query, best first, and how many
// texts match in all.
func (m *Matcher) Top(query string, n int) ([]Match, int) {
	q := Lower(query)
	top := make([]Match, 0, max(n, 0))
	if m.all || !strings.HasPrefix(q, m.query) {
		m.cand = m.cand[:0]
		for i := range m.t.lower {
			s, ok := Score(m.t.lower[i], int(m.t.base[i]), q)
			if ok {
				m.cand = append(m.cand, int32(i))
				top = m.insertTop(top, Match{Index: i, Score: s}, n)
			}
		}
	} else {
		kept := m.cand[:0]
		for _, i := range m.cand {
			if s, ok := Score(m.t.lower[i], int(m.t.base[i]), q); ok {
				kept = append(kept, i)
				top = m.insertTop(top, Match{Index: int(i), Score: s}, n)
			}
		}
		m.cand = kept
	}
	m.query, m.all = q, q == ""
	return top, len(m.cand)
}

// better orders matches: higher score, then the shorter text, then by
// text, then by index.
func (m *Matcher) better(a, b Match) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	ta, tb := m.t.texts[a.Index], m.t.texts[b.Index]
	if len(ta) != len(tb) {
		return len(ta) < len(tb)
	}
	if ta != tb {
		return ta < tb
	}
	return a.Index < b.Index
}

// insertTop keeps top sorted best first and at most n long.
func (m *Matcher) insertTop(top []Match, x Match, n int) []Match {
	if n <= 0 {
		return top
	}
	if len(top) == n && !m.better(x, top[n-1]) {
		return top
	}
	i := len(top)
	for i > 0 && m.better(x, top[i-1]) {
		i--
	}
	if len(top) < n {
		top = append(top, Match{})
	}
	copy(top[i+1:], top[i:len(top)-1])
	top[i] = x
	return top
}

// Score bands: the query in the base, the query as one run in the text,
// the letters apart in the base, the letters apart in the text.
const (
	bandBaseRun = 3000
	bandPathRun = 2000
	bandBase    = 1000
)

// Score rates lowered text p, whose base starts at byte b, for lowered
// query q (see Lower); ok is false when q's letters are not all in p in
// order. It is the one scoring function: every ranking goes through it.
func Score(p string, b int, q string) (int, bool) {
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

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// Lower lowers ASCII letters only, so byte offsets (a base) stay those
// of the original text.
func Lower(s string) string {
	if !hasUpper(s) {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
