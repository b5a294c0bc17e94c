package pisession

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// idsFile writes a session whose n entries get their id and parent from
// shape (parent "" is null) and returns its path.
func idsFile(t testing.TB, n int, shape func(i int) (id, parent string)) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(header("linear"))
	for i := range n {
		id, parent := shape(i)
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		fmt.Fprintf(&b, `{"type":"custom","customType":"t","id":"%s","parentId":%s,"timestamp":"2026-12-01T05:00:01.000Z"}`+"\n", id, p)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, b.String())
	return path
}

// loadState reads a file the way Open does and returns the state even when
// the file is refused, so a test can count the work the read took.
func loadState(t testing.TB, path string) (*state, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st := &state{opts: Options{ReadOnly: true}.withDefaults(), path: path, f: f, readOnly: true}
	return st, st.loadLocked()
}

func hexID(i int) string { return fmt.Sprintf("%08x", i) }

// However the ids repeat or point, opening a file links the tree in one
// pass over it (it used to relink the whole tree once per repeated id, so
// 100,000 entries sharing one id took 100,000 passes).
func TestOpenLinksTheTreeOnce(t *testing.T) {
	t.Parallel()
	const n = 20_000 // the count does not matter: passes are counted
	cases := []struct {
		name   string
		n      int
		shape  func(i int) (string, string)
		broken bool
	}{
		{"every entry shares one id", 100_000, func(i int) (string, string) { return "aaaaaaaa", "" }, false},
		{"one id, each its own parent", n, func(i int) (string, string) {
			if i == 0 {
				return "aaaaaaaa", ""
			}
			return "aaaaaaaa", "aaaaaaaa"
		}, true},
		{"children before their parents", n, func(i int) (string, string) {
			if i == n-1 {
				return hexID(i), ""
			}
			return hexID(i), hexID(i + 1)
		}, false},
		{"every parent missing", n, func(i int) (string, string) { return hexID(i), "m" + hexID(i) }, false},
		{"one long cycle", n, func(i int) (string, string) { return hexID(i), hexID((i + 1) % n) }, true},
		{"pairs of duplicates", n, func(i int) (string, string) { return hexID(i / 2), hexID(i/2 - 1) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := loadState(t, idsFile(t, c.n, c.shape))
			if c.broken != (err != nil) || err != nil && !errors.Is(err, ErrDamaged) {
				t.Fatalf("open: %v, want damaged=%v", err, c.broken)
			}
			if st.resolvePasses != 1 {
				t.Errorf("linking the tree took %d passes over it, want 1", st.resolvePasses)
			}
			if len(st.nodes) != c.n {
				t.Errorf("%d entries, want %d", len(st.nodes), c.n)
			}
		})
	}
}

// A repeated id means the last entry with it, for every parent link in the
// file, those before it included (pi keeps one map from id to entry, in
// which the later entry replaces the earlier one).
func TestRepeatedIDMeansTheLastEntry(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, header("dup")+
		msgLine("aaaaaaaa", "", "user", "first a", 1)+
		msgLine("bbbbbbbb", "aaaaaaaa", "assistant", "b under a", 2)+
		msgLine("aaaaaaaa", "", "user", "second a", 3)+
		msgLine("cccccccc", "bbbbbbbb", "user", "c under b", 4))
	s := mustOpen(t, path)
	if got := texts(s.Path()); got != "second a|b under a|c under b" {
		t.Errorf("path %s, want the later a as b's parent", got)
	}
	if e, _ := s.Get("aaaaaaaa"); !strings.Contains(string(e.Raw), "second a") {
		t.Errorf("Get(a) = %s, want the later entry", e.Raw)
	}
	if w := s.Warnings(); len(w) != 1 || !strings.Contains(w[0], "line 4 reuses the id aaaaaaaa of line 2") {
		t.Errorf("warnings %q", w)
	}
	s.Close()

	// The same when the later entry arrives while the file is open.
	writeFile(t, path, header("dup")+
		msgLine("aaaaaaaa", "", "user", "first a", 1)+
		msgLine("bbbbbbbb", "aaaaaaaa", "assistant", "b under a", 2))
	s = mustOpen(t, path)
	defer s.Close()
	appendRaw(t, path, msgLine("aaaaaaaa", "", "user", "second a", 3)+msgLine("cccccccc", "bbbbbbbb", "user", "c under b", 4))
	if _, err := s.Refresh(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if got := texts(s.Path()); got != "second a|b under a|c under b" {
		t.Errorf("after the arrival: path %s", got)
	}
}

// Lines another writer adds are linked in one pass per refresh, however
// many of them repeat ids.
func TestRefreshLinksArrivalsOnce(t *testing.T) {
	t.Parallel()
	path := idsFile(t, 10, func(i int) (string, string) { return hexID(i), "" })
	s := mustOpen(t, path)
	defer s.Close()
	var b strings.Builder
	for i := range 20_000 {
		b.WriteString(msgLine(hexID(i%10), hexID((i+1)%10), "user", "again", i))
	}
	appendRaw(t, path, b.String())
	before := s.resolvePasses
	if _, err := s.Refresh(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if got := s.resolvePasses - before; got != 1 {
		t.Errorf("the refresh relinked the tree %d times, want 1", got)
	}
	if s.Len() != 20_010 {
		t.Errorf("%d entries", s.Len())
	}
	if w := s.Warnings(); !strings.Contains(strings.Join(w, "\n"), "cycle") {
		t.Errorf("the arrivals make a cycle; %d warnings, none says so", len(w))
	}
}

func appendRaw(t testing.TB, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

// texts joins the first text of each message entry of a path.
func texts(path []Entry) string {
	var out []string
	for _, e := range path {
		out = append(out, firstText(findMember(e.Raw, "message"), 100))
	}
	return strings.Join(out, "|")
}
