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
// query remembers the texts it matched, and where in each its letters
// ended, so a query that extends the last one (the next key typed) looks
// only at those, and only for the letters added: a keystroke costs what
// the surviving texts cost, not all of them. A text that cannot beat the
// n best found so far is not scored further than it takes to know.
type Matcher struct {
	t     *Texts
	query string
	cand  []int32 // indices of the texts matching query
	end   []int32 // for each, the byte after query's last letter in it (matched leftmost)
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
	consider := func(i int32) {
		if n <= 0 {
			return
		}
		floor := -1 // a text must score this much to enter top
		if len(top) == n {
			floor = top[n-1].Score
		}
		if s := rate(m.t.lower[i], int(m.t.base[i]), q, floor); s >= 0 {
			top = m.insertTop(top, Match{Index: int(i), Score: s}, n)
		}
	}
	if m.all || !strings.HasPrefix(q, m.query) {
		m.cand, m.end = m.cand[:0], m.end[:0]
		for i, p := range m.t.lower {
			if e, ok := follow(p, 0, q); ok {
				m.cand, m.end = append(m.cand, int32(i)), append(m.end, int32(e))
				consider(int32(i))
			}
		}
	} else {
		added, k := q[len(m.query):], 0
		for j, i := range m.cand {
			if e, ok := follow(m.t.lower[i], int(m.end[j]), added); ok {
				m.cand[k], m.end[k] = i, int32(e)
				k++
				consider(i)
			}
		}
		m.cand, m.end = m.cand[:k], m.end[:k]
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
	if _, ok := follow(p, 0, q); !ok {
		return 0, false
	}
	return rate(p, b, q, -1), true
}

// rate is Score for a text known to hold q's letters in order. It stops
// as soon as the text is known to score below floor, and then says -1.
func rate(p string, b int, q string, floor int) int {
	if q == "" {
		return 0
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
		return s
	}
	if floor > bandPathRun+10*len(q)+100 {
		return -1
	}
	// Not in the base, a run can only start before it: only that part of
	// the text is searched again.
	if i := strings.Index(p[:min(len(p), b+len(q)-1)], q); i >= 0 {
		s := bandPathRun + 10*len(q)
		if i == 0 || boundary(p[i-1]) {
			s += 100
		}
		return s
	}
	if floor > bandBase+bandBase-1 {
		return -1
	}
	if s, ok := spread(base, q); ok {
		return bandBase + s
	}
	if floor > bandBase-1 {
		return -1
	}
	s, _ := spread(p, q)
	return s
}

// follow matches q's letters in p in order from byte at on, each at its
// leftmost place, and returns the byte after the last; ok is false when
// they are not all there.
func follow(p string, at int, q string) (end int, ok bool) {
	for j := 0; j < len(q); j++ {
		k := strings.IndexByte(p[at:], q[j])
		if k < 0 {
			return 0, false
		}
		at += k + 1
	}
	return at, true
}

// spread scores letters matched apart (greedily, leftmost): runs and word
// starts earn points, gaps cost them; the result stays within a band. ok
// is false when q's letters are not all in p in order.
func spread(p, q string) (int, bool) {
	s, last := 0, -2
	at := 0
	for j := 0; j < len(q); j++ {
		k := strings.IndexByte(p[at:], q[j])
		if k < 0 {
			return 0, false
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
	return max(min(s+100, bandBase-1), 0), true
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
