package pisession

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
)

// Unflush undoes Flush for a session that came to nothing: a session
// created deferred here, flushed for another program (pi, launched on the
// file) that then wrote nothing, goes back to memory and its file is
// removed, so a launch that failed or a prompt pi refused leaves no empty
// session behind ("(untitled)", pi's "(no messages)"). It reports whether
// it did. A file holding anything but the header, model and
// thinking-level changes and a name (a message, a worktree's record), in
// what this session wrote or what pi appended, is left alone; what pi
// appended is dropped with the file (pi writes it again when it starts).
// The caller makes sure no other program still holds the file.
func (s *Session) Unflush(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.deferred || !s.madeHere || s.f == nil {
		return false, nil
	}
	for i := range s.nodes {
		switch s.nodes[i].typ {
		case TypeModelChange, TypeThinkingLevelChange, TypeSessionInfo:
		default:
			return false, nil
		}
	}
	fi, err := s.f.Stat()
	if err != nil || fi.Size() < s.offset || fi.Size() > s.offset+maxUnflushTail {
		return false, nil
	}
	data := make([]byte, fi.Size())
	if _, err := s.f.ReadAt(data, 0); err != nil && err != io.EOF {
		return false, fmt.Errorf("read %s: %w", s.path, err)
	}
	// pi records the model and thinking level it starts with, and may
	// have done so before it failed: that is no conversation either.
	for _, l := range bytes.Split(data[s.offset:], []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if !rawStringEquals(findMember(l, "type"), TypeModelChange) && !rawStringEquals(findMember(l, "type"), TypeThinkingLevelChange) &&
			!rawStringEquals(findMember(l, "type"), TypeSessionInfo) {
			return false, nil
		}
	}
	pending := bytes.Split(bytes.TrimSuffix(data[:s.offset], []byte("\n")), []byte("\n"))
	if err := os.Remove(s.path); err != nil {
		return false, fmt.Errorf("remove the empty session file %s: %w", s.path, err)
	}
	s.f.Close()
	s.f, s.deferred, s.pending, s.offset = nil, true, pending, 0
	return true, nil
}

// maxUnflushTail bounds what another program may have appended to a file
// Unflush still removes: pi's start writes two short lines.
const maxUnflushTail = 64 << 10
