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
	if id == "" || strings.ContainsAny(id, `/\`) {
		return "", fmt.Errorf("find session %q: not a session id: %w", id, ErrNotFound)
	}
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("find session %s: %w", id, err)
	}
	var matches []string
	for _, de := range des {
		name := de.Name()
		u := strings.LastIndexByte(name, '_')
		if u < 0 || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		fid := strings.TrimSuffix(name[u+1:], ".jsonl")
		if fid == id {
			return filepath.Join(dir, name), nil
		}
		if strings.HasPrefix(fid, id) {
			matches = append(matches, filepath.Join(dir, name))
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("no session %s in %s: %w", id, dir, ErrNotFound)
	case 1:
		return matches[0], nil
	}
	return "", fmt.Errorf("%d sessions in %s have ids starting with %s; give more of the id", len(matches), dir, id)
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
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	lr := newLineReader(f, 0, maxHeaderScan, maxHeaderScan)
	for {
		l, ok, err := lr.next()
		if err != nil || !ok || l.tooLong {
			return false
		}
		if isBlank(l.b) {
			continue
		}
		fields, err := scanEntry(l.b)
		if err != nil {
			if !l.terminated {
				return false
			}
			continue
		}
		_, idOK := stringValue(fields.id)
		return fields.typ == TypeSession && idOK
	}
}
