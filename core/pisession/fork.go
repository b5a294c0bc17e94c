package pisession

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
)

// Fork writes a new session in dir holding the branch of s from its root
// to the entry upTo ("" for none: a session with only a header), as pi's
// fork does: the entries keep their ids and their lines byte for byte, and
// the new header names s's file as its parentSession. It returns the new
// file's path.
func Fork(ctx context.Context, s *Session, dir, upTo string, opts Options) (string, error) {
	opts = opts.withDefaults()
	var path []Entry
	if upTo != "" {
		var err error
		if path, err = s.PathTo(upTo); err != nil {
			return "", fmt.Errorf("fork: %w", err)
		}
	}
	created := opts.Now()
	id, err := newUUIDv7(created, opts.Rand)
	if err != nil {
		return "", fmt.Errorf("fork: %w", err)
	}
	ts := FormatTimestamp(created)
	w := newObjWriter()
	w.str("type", TypeSession)
	w.val("version", Version)
	w.str("id", id)
	w.str("timestamp", ts)
	w.str("cwd", s.Header().Cwd)
	w.strIf("parentSession", s.File())
	hdr, err := w.done()
	if err != nil {
		return "", fmt.Errorf("fork: %w", err)
	}
	var b bytes.Buffer
	b.Write(hdr)
	b.WriteByte('\n')
	for _, e := range path {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		b.Write(e.Raw)
		b.WriteByte('\n')
	}
	return writeNew(dir, filepath.Join(dir, FileName(ts, id)), b.Bytes())
}
