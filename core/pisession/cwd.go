package pisession

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// SetCwd makes the header's cwd cwd. pi runs a session it opens with
// --session in the folder its header names, whatever folder it was
// started in, so the header must name the folder the session works in
// (a session moved to a worktree of its own, or back to its project).
//
// A session not yet written changes in memory. A written file is
// rewritten under the append lock: a copy with the new header and every
// other byte as it was, renamed over the file unless the file grew
// meanwhile (pi takes no lock; its line would be lost), in which case it
// tries again. The Session reads the new file, as after pi's own
// rewrites.
func (s *Session) SetCwd(ctx context.Context, cwd string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ErrClosed
	case s.header.Cwd == cwd:
		return nil
	case s.readOnly:
		return ErrReadOnly
	}
	value, _ := json.Marshal(cwd) // a string always marshals
	hdr, err := editObject(s.header.Raw, []Member{{Key: "cwd", Value: value}})
	if err != nil {
		return fmt.Errorf("set the working directory of %s: %w", s.path, err)
	}
	if s.deferred {
		s.header.Cwd, s.header.Raw = cwd, hdr
		s.pending[0] = hdr
		return nil
	}
	release, err := s.lockFile(ctx)
	if err != nil {
		return err
	}
	defer release()
	for range 3 {
		if _, _, err := s.settledRefresh(ctx); err != nil {
			return err
		}
		if s.header.Cwd == cwd {
			return nil // another writer did it; the refresh reread it
		}
		if hdr, err = editObject(s.header.Raw, []Member{{Key: "cwd", Value: value}}); err != nil {
			return fmt.Errorf("set the working directory of %s: %w", s.path, err)
		}
		err = s.replaceHeaderLocked(hdr)
		if !errors.Is(err, errGrew) {
			return err
		}
	}
	return fmt.Errorf("set the working directory of %s: %w", s.path, errGrew)
}

// errGrew: the file grew while its new version was written.
var errGrew = errors.New("another writer kept appending to the file; it was left as it was")

// replaceHeaderLocked writes the file with hdr for its header line beside
// it and renames it over the file, unless the file no longer has the
// size that was read; then it reads the file again.
func (s *state) replaceHeaderLocked(hdr []byte) error {
	fi, err := s.f.Stat()
	if err != nil {
		return err
	}
	data := make([]byte, fi.Size())
	if _, err := s.f.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read %s: %w", s.path, err)
	}
	start := s.headerOff
	end := bytes.IndexByte(data[start:], '\n')
	if end < 0 {
		end = len(data) - int(start)
	}
	var b bytes.Buffer
	b.Grow(len(data) + len(hdr))
	b.Write(data[:start])
	b.Write(hdr)
	b.Write(data[int(start)+end:])
	tmp, err := writeTemp(filepath.Dir(s.path), b.Bytes(), fi.Mode().Perm())
	if err != nil {
		return fmt.Errorf("set the working directory of %s: %w", s.path, err)
	}
	if now, err := os.Stat(s.path); err != nil || now.Size() != fi.Size() || !os.SameFile(now, fi) {
		os.Remove(tmp)
		return errGrew
	}
	if err := os.Rename(tmp, s.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("set the working directory of %s: %w", s.path, err)
	}
	_, _, err = s.reloadLocked()
	return err
}
