package pisession

// Following a writer that holds the file in memory (the user's pi run by
// pi-tui): pi never rereads its session file, so its next append
// continues from its own leaf, whatever others appended since. These tell
// whether that leaf is still this Session's.

// FileLeaf returns the entry pi continues from when it opens the file
// now: its last entry, or the parent of a trailing leaf marker; "" for a
// file without entries.
func (s *Session) FileLeaf() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.fileLeaf(); i >= 0 {
		return s.nodes[i].id
	}
	return ""
}

// ContinuesFrom reports whether a writer whose leaf is id (pi's, as its
// get_entries reports it; "" for none) appends where this Session
// continues: id is the leaf, or a leaf marker on it (pi, opening a file
// Branch moved, takes the marker as its leaf).
func (s *Session) ContinuesFrom(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		return s.leaf < 0
	}
	i, ok := s.byID[id]
	if !ok {
		return false
	}
	return i == s.leaf || s.isLeafMarker(i) && s.nodes[i].parent == s.leaf
}

// Descends reports whether the entry id is anc or below it.
func (s *Session) Descends(id, anc string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	a, aok := s.byID[anc]
	if !ok || !aok {
		return false
	}
	return s.descends(i, a, 0)
}

// OffBranch counts the entries from file position since on (Len before
// a turn) that are not on the branch ending at the leaf, leaf markers
// aside: what another writer put on a side branch meanwhile.
func (s *Session) OffBranch(since int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if since < 0 || since >= len(s.nodes) {
		return 0
	}
	n := 0
	for i := since; i < len(s.nodes); i++ {
		if !s.isLeafMarker(int32(i)) {
			n++
		}
	}
	// A parent comes before its child in the file (a damaged file that
	// names parents ahead of them is at worst miscounted), so the walk
	// up from the leaf is past the new entries once it passes since.
	for i, steps := s.leaf, 0; i >= int32(since) && steps < len(s.nodes); i, steps = s.nodes[i].parent, steps+1 {
		if !s.isLeafMarker(i) {
			n--
		}
	}
	return n
}
