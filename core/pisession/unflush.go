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
// it did: a file another program appended to (it is longer than this
// session wrote it), or one holding anything but the header, model and
// thinking-level changes and a name (a message, a worktree's record), is
// left alone. The caller makes sure no other program still holds the
// file.
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
	if err != nil || fi.Size() != s.offset {
		return false, nil
	}
	data := make([]byte, s.offset)
	if _, err := s.f.ReadAt(data, 0); err != nil && err != io.EOF {
		return false, fmt.Errorf("read %s: %w", s.path, err)
	}
	var pending [][]byte
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		pending = append(pending, l)
	}
	if err := os.Remove(s.path); err != nil {
		return false, fmt.Errorf("remove the empty session file %s: %w", s.path, err)
	}
	s.f.Close()
	s.f, s.deferred, s.pending, s.offset = nil, true, pending, 0
	return true, nil
}
