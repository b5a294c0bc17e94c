package pisession

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

type indexKey struct {
	size    int64
	modTime int64 // Unix nanoseconds
}

// MemIndex is an Index in memory. It is safe for concurrent use.
type MemIndex struct {
	mu sync.RWMutex
	m  map[string]memItem
}

type memItem struct {
	key indexKey
	sum Summary
}

// NewMemIndex returns an empty MemIndex.
func NewMemIndex() *MemIndex { return &MemIndex{m: map[string]memItem{}} }

// Get implements Index.
func (x *MemIndex) Get(path string, size int64, modTime time.Time) (Summary, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	it, ok := x.m[path]
	if !ok || it.key != (indexKey{size, modTime.UnixNano()}) {
		return Summary{}, false
	}
	return it.sum, true
}

// Put implements Index.
func (x *MemIndex) Put(s Summary) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.m[s.Path] = memItem{key: indexKey{s.Size, s.ModTime.UnixNano()}, sum: s}
}

// Retain forgets every path for which keep returns false (files that are
// gone, say).
func (x *MemIndex) Retain(keep func(path string) bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for p := range x.m {
		if !keep(p) {
			delete(x.m, p)
		}
	}
}

// Len returns the number of summaries held.
func (x *MemIndex) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.m)
}

// fileIndexVersion is the format of a FileIndex file; another version is
// ignored (and rebuilt from the session files).
const fileIndexVersion = 1

// FileIndex is a MemIndex kept in a JSON file between runs.
type FileIndex struct {
	*MemIndex
	path string
}

type fileIndexDoc struct {
	Version  int            `json:"version"`
	Sessions []fileIndexRow `json:"sessions"`
}

type fileIndexRow struct {
	ModTimeNs int64   `json:"modTimeNs"`
	Summary   Summary `json:"summary"`
}

// LoadFileIndex reads the index kept at path. A missing file is an empty
// index; an unreadable or foreign one is an empty index too, and the error
// says why (the index is rebuilt from the session files as they are listed).
func LoadFileIndex(path string) (*FileIndex, error) {
	x := &FileIndex{MemIndex: NewMemIndex(), path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return x, nil
	}
	if err != nil {
		return x, fmt.Errorf("read session index %s (it will be rebuilt): %w", path, err)
	}
	var doc fileIndexDoc
	if err := json.Unmarshal(data, &doc); err != nil || doc.Version != fileIndexVersion {
		if err == nil {
			err = fmt.Errorf("format version %d, not %d", doc.Version, fileIndexVersion)
		}
		return x, fmt.Errorf("session index %s is not usable (it will be rebuilt): %w", path, err)
	}
	for _, r := range doc.Sessions {
		s := r.Summary
		x.m[s.Path] = memItem{key: indexKey{s.Size, r.ModTimeNs}, sum: s}
	}
	return x, nil
}

// Save writes the index atomically (temporary file, then rename).
func (x *FileIndex) Save() error {
	x.mu.RLock()
	doc := fileIndexDoc{Version: fileIndexVersion, Sessions: make([]fileIndexRow, 0, len(x.m))}
	for _, it := range x.m {
		doc.Sessions = append(doc.Sessions, fileIndexRow{ModTimeNs: it.key.modTime, Summary: it.sum})
	}
	x.mu.RUnlock()
	sort.Slice(doc.Sessions, func(a, b int) bool { return doc.Sessions[a].Summary.Path < doc.Sessions[b].Summary.Path })
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("save session index: %w", err)
	}
	dir := filepath.Dir(x.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save session index: %w", err)
	}
	tmp, err := writeTemp(dir, b.Bytes(), 0o600)
	if err != nil {
		return fmt.Errorf("save session index %s: %w", x.path, err)
	}
	if err := os.Rename(tmp, x.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("save session index %s: %w", x.path, err)
	}
	return nil
}
