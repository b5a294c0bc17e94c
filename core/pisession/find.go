package pisession

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotFound: no session file matches.
var ErrNotFound = errors.New("no such session")

// maxHeaderScan bounds how far MostRecent reads for a header, as pi 0.85
// does (1 MiB), so a huge or corrupt file costs little.
const maxHeaderScan = 1 << 20

// Find returns the session file in dir whose id is id, or the only one
// whose id starts with id (file names end in "_<id>.jsonl", as pi names
// them; pi's --session accepts an id the same way).
func Find(dir, id string) (string, error) {
	exact, prefixed, err := Matches(dir, id)
	if err != nil {
		return "", fmt.Errorf("find session %s: %w", id, err)
	}
	if len(exact) > 0 {
		return exact[0], nil
	}
	switch len(prefixed) {
	case 0:
		return "", fmt.Errorf("no session %s in %s: %w", id, dir, ErrNotFound)
	case 1:
		return prefixed[0], nil
	}
	return "", fmt.Errorf("%d sessions in %s have ids starting with %s; give more of the id", len(prefixed), dir, id)
}

// Matches returns the session files in dir whose id, as the file's name
// carries it ("<timestamp>_<id>.jsonl", as pi names them), is id (exact)
// or starts with it (prefixed). Only the folder is read, no file: a
// lookup by id costs the same however many sessions the folder holds. A
// missing folder matches nothing; an id that could name a path (a slash)
// or is empty is ErrNotFound.
func Matches(dir, id string) (exact, prefixed []string, err error) {
	if id == "" || strings.ContainsAny(id, `/\`) {
		return nil, nil, fmt.Errorf("%q is not a session id: %w", id, ErrNotFound)
	}
	names, err := readNames(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range names {
		u := strings.LastIndexByte(name, '_')
		if u < 0 || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		switch fid := strings.TrimSuffix(name[u+1:], ".jsonl"); {
		case fid == id:
			exact = append(exact, filepath.Join(dir, name))
		case strings.HasPrefix(fid, id):
			prefixed = append(prefixed, filepath.Join(dir, name))
		}
	}
	return exact, prefixed, nil
}

// readNames returns the names in dir, unsorted (a lookup needs no order,
// and a folder of thousands of sessions is read on every lookup); a
// missing folder has none.
func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// MostRecent returns the session pi's --continue would pick in dir: of the
// *.jsonl files whose first JSON line is a session header, the one modified
// last. Only the headers are read.
func MostRecent(dir string) (string, error) {
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("find the latest session in %s: %w", dir, err)
	}
	best, bestT := "", time.Time{}
	for _, de := range des {
		if !strings.HasSuffix(de.Name(), ".jsonl") {
			continue
		}
		p := filepath.Join(dir, de.Name())
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || !hasHeader(p) {
			continue
		}
		if best == "" || fi.ModTime().After(bestT) {
			best, bestT = p, fi.ModTime()
		}
	}
	if best == "" {
		return "", fmt.Errorf("no session in %s: %w", dir, ErrNotFound)
	}
	return best, nil
}

// hasHeader reports whether the first JSON line of the file (blank and
// malformed lines skipped, as pi skips them) is a session header, reading
// at most maxHeaderScan bytes.
func hasHeader(path string) bool {
	_, err := ReadHeader(path)
	return err == nil
}

// ReadHeader returns a session file's header: its first JSON line, blank
// and malformed lines skipped as pi skips them. It reads at most
// maxHeaderScan bytes, so it costs the same for any file, and refuses
// what is not a regular file (a FIFO named like a session never blocks
// it). A file whose first JSON line is not a session header is
// ErrNotSession.
func ReadHeader(path string) (Header, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return Header{}, err
	} else if !fi.Mode().IsRegular() {
		return Header{}, fmt.Errorf("%s is not a regular file: %w", path, ErrNotSession)
	}
	lr := newLineReader(f, 0, maxHeaderScan, maxHeaderScan)
	var hdr Header
	for n := int32(1); ; n++ {
		l, ok, err := lr.next()
		if err != nil {
			return Header{}, err
		}
		if !ok || l.tooLong {
			return Header{}, fmt.Errorf("no session header in the first %d bytes: %w", maxHeaderScan, ErrNotSession)
		}
		sc := scanned{l: l}
		kind, _, err := classifyLine(&sc, n, maxHeaderScan, &hdr, discard{})
		if err != nil {
			return Header{}, err
		}
		if kind == lineHeader {
			return hdr, nil
		}
		if sc.err != nil && !l.terminated {
			return Header{}, fmt.Errorf("the first line is incomplete: %w", ErrNotSession)
		}
	}
}
