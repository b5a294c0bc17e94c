package sessions

import "context"

// Following a writer that holds the session in memory: the user's pi,
// run by pi-tui as a runtime's engine, never rereads its file, so its
// next append continues from its own leaf. The runtime manager asks pi
// for that leaf and compares it with the file through these.

// Cursor is where the session stood: its leaf as the file records it
// (hidden entries and markers included, as pi's leaf is) and how many
// entries the file had.
type Cursor struct {
	Leaf    string
	Entries int
}

// Cursor returns where the session stands now.
func (s *Session) Cursor() Cursor { return Cursor{Leaf: s.pi.Leaf(), Entries: s.pi.Len()} }

// Continues reports whether a writer whose leaf is writerLeaf (pi's, as
// its get_entries says) appends where this session continues.
func (s *Session) Continues(writerLeaf string) bool { return s.pi.ContinuesFrom(writerLeaf) }

// FileLeaf returns the entry pi continues from when it opens the file now.
func (s *Session) FileLeaf() string { return s.pi.FileLeaf() }

// Descends reports whether the entry id is anc or below it.
func (s *Session) Descends(id, anc string) bool { return s.pi.Descends(id, anc) }

// OffBranch counts the entries added since c that are not on the branch
// the session continues: another writer's side branch.
func (s *Session) OffBranch(c Cursor) int { return s.pi.OffBranch(c.Entries) }

// Keep puts the session back on the branch ending at id (an entry pi
// wrote, whose turn another writer forked from), with a pi-tui.leaf
// marker when id is not the file's last entry, so pi reopening the file
// and `pi -c` continue there too. Unlike Branch, the model and thinking
// level are not written again: the branch is the one they were chosen on.
func (s *Session) Keep(ctx context.Context, id string) error {
	a, err := s.pi.Branch(ctx, id)
	s.arrived(a.Arrived)
	return err
}
