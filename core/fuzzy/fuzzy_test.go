package fuzzy

import (
	"fmt"
	"slices"
	"testing"
)

func texts(t *Texts, ms []Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = t.Text(m.Index)
	}
	return out
}

// A base holding the query as one run comes first, then the query as one
// run elsewhere, then the letters apart in the base, then apart anywhere;
// ties go to the shorter text; case does not matter.
func TestRanksBasesThenRunsThenLetters(t *testing.T) {
	all := []string{
		"session shop/Fix the LOGIN form",   // run in the base
		"project ~/src/login-service tools", // run outside the base
		"session shop/look, gain now",       // letters apart in the base
		"command l-o-g-i-n/apart",           // letters apart outside the base
		"session shop/login",                // the whole base: first
		"setting nothing here",
	}
	base := []int32{13, 8, 13, 18, 13, 8}
	tx := Prepare(all, base)
	top, n := NewMatcher(tx).Top("Login", 10)
	want := []string{"session shop/login", "session shop/Fix the LOGIN form", "project ~/src/login-service tools",
		"session shop/look, gain now", "command l-o-g-i-n/apart"}
	if !slices.Equal(texts(tx, top), want) || n != 5 {
		t.Fatalf("got %q (%d)\nwant %q", texts(tx, top), n, want)
	}
}

// Typing on narrows the last result; whatever the order of queries, the
// answer is the one a fresh matcher gives.
func TestIncrementalEqualsFresh(t *testing.T) {
	var all []string
	var base []int32
	for i := range 3000 {
		s := fmt.Sprintf("Kind%d ctx%d/Title %d of sub%d", i%4, i%17, i, i%5)
		all = append(all, s)
		base = append(base, int32(len(fmt.Sprintf("Kind%d ctx%d/", i%4, i%17))))
	}
	tx := Prepare(all, base)
	m := NewMatcher(tx)
	for _, q := range []string{"", "t", "ti", "tit", "title 1", "title 12", "t", "s", "sub3", "ctx1/t", "k", "ki", "kind2 ", "x", ""} {
		got, n := m.Top(q, 20)
		want, wn := NewMatcher(tx).Top(q, 20)
		if !slices.Equal(got, want) || n != wn {
			t.Fatalf("%q: incremental %q (%d), fresh %q (%d)", q, texts(tx, got), n, texts(tx, want), wn)
		}
	}
}

// Lowering keeps byte offsets, so a base found in the text stays valid;
// only ASCII letters change.
func TestLowerKeepsOffsets(t *testing.T) {
	for in, want := range map[string]string{"ÄBC/Déf": "Äbc/déf", "abc": "abc", "": ""} {
		if got := Lower(in); got != want || len(got) != len(in) {
			t.Errorf("Lower(%q) = %q, want %q", in, got, want)
		}
	}
	if top, n := NewMatcher(Prepare([]string{"A", "b"}, nil)).Top("a", 0); len(top) != 0 || n != 1 {
		t.Errorf("n=0: %v %d", top, n)
	}
}
