package checkpoints

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/internal/lineread"
)

// A session's journal (sessions/<id>/journal.jsonl) holds one JSON
// record a line, appended: a header, then the changes and the undos and
// redos, in the order they happened. Replaying it gives each change's
// state. A line that cannot be read is skipped.

const journalName = "journal.jsonl"

// maxRecord bounds one journal line.
const maxRecord = 64 << 10

// version is one side of a change: what the path held.
type version struct {
	Kind string `json:"kind"` // "file", "link", "none", "other"
	Hash string `json:"hash,omitempty"`
	Size int64  `json:"size,omitempty"`
	Mode uint32 `json:"mode,omitempty"` // permission bits
	Kept bool   `json:"kept,omitempty"`
}

// record is one journal line.
type record struct {
	Type string `json:"type"` // "session", "change", "undo", "redo"
	// session
	V       int    `json:"v,omitempty"`
	Session string `json:"session,omitempty"`
	File    string `json:"file,omitempty"` // the session file
	// change
	N          int    `json:"n,omitempty"`
	Entry      string `json:"entry,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	Tool       string `json:"tool,omitempty"`
	Root       string `json:"root,omitempty"`
	// Folder names the folder of a project of several folders the change
	// was made in, when it is not the session's root (ADR 0085): its
	// path is shown NAME:path, and undoing it needs the folder to be the
	// project's still.
	Folder string `json:"folder,omitempty"`
	Path   string `json:"path,omitempty"`
	// PathRaw holds the path's bytes when they are not UTF-8 (JSON
	// would turn them into U+FFFD, and an undo write another name).
	PathRaw []byte   `json:"pathRaw,omitempty"`
	Status  string   `json:"status,omitempty"`
	Added   int      `json:"added,omitempty"`
	Removed int      `json:"removed,omitempty"`
	Binary  bool     `json:"binary,omitempty"`
	Before  *version `json:"before,omitempty"`
	After   *version `json:"after,omitempty"`
	Bytes   int64    `json:"bytes,omitempty"` // content this change added to the store
	// undo, redo
	Changes []int `json:"changes,omitempty"`
	Forced  bool  `json:"forced,omitempty"`
	At      int64 `json:"at"` // Unix milliseconds
}

// journal is the open journal of one session.
type journal struct {
	mu     sync.Mutex
	path   string
	loaded bool
	size   int64 // of the file when n and bytes were read: another process may append
	n      int   // the last change's number
	bytes  int64 // content the session's changes added
}

// safeID reports whether id can name its folder as it is: 1 to 128 of
// A-Z a-z 0-9 . _ -, not starting with a dot. (A regular expression with
// {0,127} cost every pi-tui command a millisecond to compile at start.)
func safeID(id string) bool {
	if len(id) == 0 || len(id) > 128 || id[0] == '.' {
		return false
	}
	for i := range len(id) {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// sessionDir is the folder of a session's journal: its id when that is a
// plain name, else a hash of it (an id is read from files pi-tui does not
// control).
// shown is the change's path as the programs show it: relative to the
// root, or NAME:path in another folder of the project.
func (r record) shown() string {
	if r.Folder != "" {
		return r.Folder + ":" + r.Path
	}
	return r.Path
}

func (s *Store) sessionDir(id string) string {
	name := id
	if !safeID(id) {
		sum := sha256.Sum256([]byte(id))
		name = "x-" + hex.EncodeToString(sum[:16])
	}
	return filepath.Join(s.dir, "sessions", name)
}

func (s *Store) journalFor(id string) *journal {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.journals[id]
	if j == nil {
		j = &journal{path: filepath.Join(s.sessionDir(id), journalName)}
		s.journals[id] = j
	}
	return j
}

// readJournal reads every record of a journal file; a missing one has
// none.
func readJournal(path string) ([]record, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the checkpoint journal: %w", err)
	}
	defer f.Close()
	var out []record
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		line, long, err := lineread.Next(br, maxRecord)
		if len(line) > 0 && !long {
			var r record
			if json.Unmarshal(line, &r) == nil && r.Type != "" {
				if r.PathRaw != nil {
					r.Path = string(r.PathRaw)
				}
				out = append(out, r)
			}
		}
		if err != nil {
			return out, nil
		}
	}
}

// load learns the last change number and the bytes used (j.mu held).
func (j *journal) load() error {
	if j.loaded {
		if fi, err := os.Stat(j.path); err != nil || fi.Size() == j.size {
			return nil
		}
		// Another process (a CLI prompt or undo beside the UI) appended:
		// read the numbers again, so none is given twice.
	}
	var size int64
	if fi, err := os.Stat(j.path); err == nil {
		size = fi.Size()
	}
	recs, err := readJournal(j.path)
	if err != nil {
		return err
	}
	j.n, j.bytes, j.size = 0, 0, size
	for _, r := range recs {
		if r.Type == "change" {
			j.n = max(j.n, r.N)
			j.bytes += r.Bytes
		}
	}
	j.loaded = true
	return nil
}

// append writes records (j.mu held), creating the journal with its
// header when it is new.
func (j *journal) append(header record, recs ...record) error {
	if err := os.MkdirAll(filepath.Dir(j.path), 0o700); err != nil {
		return fmt.Errorf("save the checkpoint: %w", err)
	}
	f, err := os.OpenFile(j.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("save the checkpoint: %w", err)
	}
	defer f.Close()
	var buf []byte
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("save the checkpoint: %w", err)
	}
	if fi.Size() == 0 {
		header.Type, header.V, header.At = "session", 1, time.Now().UnixMilli()
		b, _ := json.Marshal(header)
		buf = append(append(buf, b...), '\n')
	} else {
		// A line a crash left half written is ended first, so it does not
		// swallow the next record (it is skipped when read).
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			buf = append(buf, '\n')
		}
	}
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf = append(append(buf, b...), '\n')
	}
	// One write: appends of another process never land inside a line.
	if _, err := f.Write(buf); err != nil {
		return fmt.Errorf("save the checkpoint: %w", err)
	}
	if fi, err := f.Stat(); err == nil {
		j.size = fi.Size()
	}
	return nil
}

func versionOf(st fileState) *version {
	v := &version{Hash: st.hash, Size: st.size, Mode: uint32(st.perm), Kept: st.kept}
	switch st.kind {
	case kindFile:
		v.Kind = "file"
	case kindLink:
		v.Kind = "link"
	case kindNone:
		v.Kind, v.Hash, v.Size, v.Mode, v.Kept = "none", "", 0, 0, true
	default:
		v.Kind = "other"
	}
	return v
}
