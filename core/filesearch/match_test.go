package filesearch

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pi-tui/pi-tui/core/filesearch/indextest"
)

func paths(ms []Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Path
	}
	return out
}

// The file whose name holds what was typed comes first; then paths
// holding it as a run; letters apart rank below; ties go to the shorter
// path; case does not matter.
func TestMatcherRanksBaseNamesAndRuns(t *testing.T) {
	l := newList("/p", []string{
		"cmd/hardware/node.go",
		"docs/shipping-and-handling.md",
		"packages/api/handler.go",
		"internal/handlers/x/y/z.go",
		"HAND.md",
		"packages/api/handler_test.go",
		"readme.md",
	})
	m := NewMatcher(l)
	top, n := m.Top("hand", 10)
	want := []string{"HAND.md", "packages/api/handler.go", "packages/api/handler_test.go", "docs/shipping-and-handling.md",
		"internal/handlers/x/y/z.go", "cmd/hardware/node.go"}
	if !slices.Equal(paths(top), want) || n != 6 {
		t.Fatalf("got %q (%d)\nwant %q", paths(top), n, want)
	}
	if top, _ := m.Top("handler.go", 10); paths(top)[0] != "packages/api/handler.go" {
		t.Fatalf("handler.go: %q", paths(top))
	}
	if top, _ := m.Top("api/hand", 10); paths(top)[0] != "packages/api/handler.go" {
		t.Fatalf("api/hand: %q", paths(top))
	}
	if top, n := m.Top("zzz", 10); len(top) != 0 || n != 0 {
		t.Fatalf("zzz: %q", paths(top))
	}
	if top, n := m.Top("", 3); n != 7 || !slices.Equal(paths(top), []string{"HAND.md", "readme.md", "cmd/hardware/node.go"}) {
		t.Fatalf("empty query: %q %d", paths(top), n)
	}
}

// Typing on narrows the last result; whatever the order of queries, the
// answer is the one a fresh matcher gives.
func TestMatcherIncrementalEqualsFresh(t *testing.T) {
	var ps []string
	for i := range 3000 {
		ps = append(ps, fmt.Sprintf("pkg%d/sub%d/file_%d.go", i%17, i%5, i))
	}
	l := newList("/p", ps)
	m := NewMatcher(l)
	for _, q := range []string{"", "f", "fi", "fil", "file_1", "file_12", "f", "s", "sub3", "sub3/f", "p", "pk", "pkg1/", "x", ""} {
		got, n := m.Top(q, 20)
		want, wn := NewMatcher(l).Top(q, 20)
		if !slices.Equal(got, want) || n != wn {
			t.Fatalf("%q: incremental %q (%d), fresh %q (%d)", q, paths(got), n, paths(want), wn)
		}
	}
}

// setupCheckout makes a 100,000-file git checkout (its index).
func setupCheckout(b *testing.B, n int) string {
	root := b.TempDir()
	if err := indextest.Checkout(root, n); err != nil {
		b.Fatal(err)
	}
	return root
}

// warmMatcher is a matcher over a 100,000-file checkout's cached list.
func warmMatcher(b *testing.B) *Matcher {
	l, err := NewCache(DefaultLimits(), nil).Get(b.Context(), setupCheckout(b, 100_000))
	if err != nil {
		b.Fatal(err)
	}
	return NewMatcher(l)
}

// BenchmarkKeystroke: each further key of "handler" typed after "h",
// narrowing the last result (the cost per key is ns/op divided by 6).
func BenchmarkKeystroke(b *testing.B) {
	m := warmMatcher(b)
	b.ReportAllocs()
	for b.Loop() {
		m.Top("h", 10)
		for _, q := range []string{"ha", "han", "hand", "handl", "handle", "handler"} {
			m.Top(q, 10)
		}
	}
}

// BenchmarkKeystrokeWorst: one key narrowing a query every path matches
// ("f" to "fi"): the most work one keystroke can cost.
func BenchmarkKeystrokeWorst(b *testing.B) {
	m := warmMatcher(b)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		m.Top("f", 10)
		b.StartTimer()
		m.Top("fi", 10)
	}
}
