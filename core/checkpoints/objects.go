package checkpoints

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Contents are kept by SHA-256 in objects/<2 hex>/<62 hex>, compressed
// with zlib. A content is written once whoever needs it (sessions and
// projects share them) and removed by Clean when nothing refers to it.

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// objectPath is where a hash's content lives ("" for a hash that names no
// kept content).
func (s *Store) objectPath(hash string) string {
	h, ok := strings.CutPrefix(hash, "sha256:")
	if !ok || len(h) != 64 {
		return ""
	}
	return filepath.Join(s.dir, "objects", h[:2], h[2:])
}

// putObject keeps content under its hash and reports the bytes it added
// (0 when it was there already).
func (s *Store) putObject(hash string, content []byte) (int64, error) {
	p := s.objectPath(hash)
	if p == "" {
		return 0, fmt.Errorf("not a content hash: %s", hash)
	}
	if _, err := os.Stat(p); err == nil {
		return 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return 0, err
	}
	var buf bytes.Buffer
	zw, _ := s.zw.Get().(*zlib.Writer)
	if zw == nil {
		zw, _ = zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	} else {
		zw.Reset(&buf)
	}
	zw.Write(content)
	zw.Close()
	s.zw.Put(zw) // a compressor is about 1 MB to set up: a first walk makes thousands
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return 0, err
	}
	_, err = tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Not synced: a content lost in a crash makes one change
		// not undoable (Undo says so), and syncing every file of a
		// project's first walk would cost seconds.
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return 0, err
	}
	return int64(len(content)), nil
}

// errMissing is a kept content that is not in the store (removed by hand,
// lost in a crash).
var errMissing = errors.New("its content is missing from the checkpoint store")

// getObject reads a kept content back, checking its hash.
func (s *Store) getObject(hash string, limit int64) ([]byte, error) {
	p := s.objectPath(hash)
	if p == "" {
		return nil, errMissing
	}
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errMissing
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("its kept content is damaged: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, fmt.Errorf("its kept content is damaged: %w", err)
	}
	if int64(len(b)) > limit || hashOf(b) != hash {
		return nil, errors.New("its kept content is damaged (the hash does not match)")
	}
	return b, nil
}
