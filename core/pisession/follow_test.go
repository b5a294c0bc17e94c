package pisession

import (
	"fmt"
	"testing"
)

// appendMessage writes a message line as another process does: no lock,
// its parent whatever that writer holds as its leaf.
func appendMessage(t *testing.T, path, id, parent, role, text string) {
	t.Helper()
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	appendRaw(t, path, fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-12-01T05:00:00.000Z","message":{"role":%q,"content":%q,"timestamp":1}}`+"\n", id, p, role, text))
}

// A writer that holds the session in memory (pi) and another that
// appends behind its back: ContinuesFrom tells when pi's leaf is no longer
// the session's, OffBranch counts what went on a side branch during a
// turn, and Branch back to pi's entry writes a marker only when another
// writer's entry is the file's last, which FileLeaf then reads through.
func TestFollowAWriterThatHoldsTheSessionInMemory(t *testing.T) {
	t.Parallel()
	path := newEmptySessionFile(t)
	ctx := ctxT(t)
	s := mustOpen(t, path)
	appendMessage(t, path, "u1", "", "user", "hold on")
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if !s.ContinuesFrom("u1") || s.ContinuesFrom("") || s.FileLeaf() != "u1" {
		t.Fatalf("after pi's first entry: continues from u1 %v, file leaf %q", s.ContinuesFrom("u1"), s.FileLeaf())
	}
	turn := s.Len()

	// pi -c appends below pi's entry: the session follows, pi is behind.
	appendMessage(t, path, "o1", "u1", "user", "from pi -c")
	appendMessage(t, path, "o2", "o1", "assistant", "pi -c's answer")
	s.Refresh(ctx)
	if s.Leaf() != "o2" || s.ContinuesFrom("u1") {
		t.Errorf("leaf %s, continues from pi's u1 %v: want o2, false", s.Leaf(), s.ContinuesFrom("u1"))
	}
	// pi's turn goes on under its own leaf: a fork.
	appendMessage(t, path, "a1", "u1", "assistant", "pi's answer")
	s.Refresh(ctx)
	if s.Leaf() != "o2" || s.FileLeaf() != "a1" || s.OffBranch(turn) != 1 {
		t.Errorf("leaf %s, file leaf %s, off branch %d: want o2, a1, 1", s.Leaf(), s.FileLeaf(), s.OffBranch(turn))
	}
	if !s.Descends("a1", "u1") || s.Descends("o2", "a1") || s.Descends("nope", "u1") {
		t.Error("Descends is wrong")
	}
	n := s.Len()
	if _, err := s.Branch(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if s.Len() != n || s.Leaf() != "a1" || s.OffBranch(turn) != 2 || !s.ContinuesFrom("a1") {
		t.Errorf("back on pi's a1 (the file's last): %d entries (want %d, no marker), leaf %s, off branch %d", s.Len(), n, s.Leaf(), s.OffBranch(turn))
	}

	// The other writer goes on after: its entry is the file's last, so
	// going back to a1 leaves a marker, which is not counted.
	appendMessage(t, path, "o3", "o2", "user", "more from pi -c")
	s.Refresh(ctx)
	if s.Leaf() != "a1" || s.FileLeaf() != "o3" {
		t.Fatalf("leaf %s, file leaf %s: want a1, o3", s.Leaf(), s.FileLeaf())
	}
	mk, err := s.Branch(ctx, "a1")
	if err != nil {
		t.Fatal(err)
	}
	if mk.Entry.ParentID != "a1" || s.FileLeaf() != "a1" || s.OffBranch(turn) != 3 {
		t.Errorf("marker under %s, file leaf %s, off branch %d: want a1, a1, 3", mk.Entry.ParentID, s.FileLeaf(), s.OffBranch(turn))
	}
	// pi reopening the file takes the marker as its leaf.
	if !s.ContinuesFrom(mk.Entry.ID) || !s.ContinuesFrom("a1") || s.ContinuesFrom("o3") {
		t.Error("ContinuesFrom does not take the marker on the leaf as the leaf")
	}
}
