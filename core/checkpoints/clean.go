package checkpoints

import "context"

// Remove deletes a session's evidence (its journal); contents no other
// session or stat cache uses go at the next Clean.
func (s *Store) Remove(sessionID string) error {
	return s.remove(sessionID)
}

// Clean removes the journals of sessions whose file is gone, the stat
// caches no journal uses, and the contents nothing refers to. The host
// runs it at start, in the background.
func (s *Store) Clean(ctx context.Context) error {
	return s.clean(ctx)
}

// Usage is the bytes the store holds on disk.
func (s *Store) Usage() (int64, error) {
	return s.usage()
}
