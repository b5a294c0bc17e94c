package sessionimport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// RecordType is the customType of the entry that ends every import into a
// file: where the session came from and how far it was read. pi keeps
// custom entries in the tree and never sends them to a model.
const RecordType = "pi-tui.import"

// record is the data of a RecordType entry.
type record struct {
	Source   Source `json:"source"`
	SourceID string `json:"sourceId"`
	From     string `json:"from"` // the file or database read
	// Stamp is what the source looked like when read (its size and
	// modification time, or the database's last change to the session): an
	// import that finds the same stamp reads nothing more.
	Stamp string `json:"stamp"`
	// Offset and Line: how far a line file was read (bytes, next line).
	Offset int64 `json:"offset,omitempty"`
	Line   int   `json:"line,omitempty"`
	// LastMessage and LastTime: the last opencode message imported.
	LastMessage string `json:"lastMessage,omitempty"`
	LastTime    int64  `json:"lastTime,omitempty"`
	// Tip is the last entry imported: what comes later goes under it.
	Tip   string `json:"tip"`
	Title string `json:"title,omitempty"`
	Model string `json:"model,omitempty"` // the model last in force (Codex says it once a turn)
	// Seq is the entry-id counter, so later ids differ from earlier ones.
	Seq uint64 `json:"seq"`
}

// recordMarker is how a record's line starts to be told apart cheaply.
var recordMarker = []byte(`"customType":"` + RecordType + `"`)

// lastRecord finds the last import record in a pi session file: first in
// its last 64 KB (where it is unless the session was continued at length
// since), else by reading the whole file as a stream.
func lastRecord(path string) (rec record, found bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return rec, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return rec, false, err
	}
	const tail = 64 << 10
	if st.Size() > tail {
		buf := make([]byte, tail)
		if _, err := f.ReadAt(buf, st.Size()-tail); err != nil && err != io.EOF {
			return rec, false, err
		}
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			if rec, found = scanRecords(buf[i+1:]); found {
				return rec, true, nil
			}
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return rec, false, err
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), pisession.DefaultMaxLineBytes)
	for sc.Scan() {
		if r, ok := parseRecord(sc.Bytes()); ok {
			rec, found = r, true
		}
	}
	return rec, found, nil
}

func scanRecords(b []byte) (rec record, found bool) {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if r, ok := parseRecord(line); ok {
			rec, found = r, true
		}
	}
	return rec, found
}

func parseRecord(line []byte) (record, bool) {
	if !bytes.Contains(line, recordMarker) {
		return record{}, false
	}
	var e struct {
		CustomType string `json:"customType"`
		Data       record `json:"data"`
	}
	if json.Unmarshal(line, &e) != nil || e.CustomType != RecordType {
		return record{}, false
	}
	return e.Data, true
}

// found is one source session found where its agent keeps it.
type found struct {
	src   Source
	id    string // the source's session id
	path  string // its file, or the database (or storage folder) holding it
	stamp string // see record.Stamp
	// opencode: where it is stored.
	oc *ocSession
}

// statFound describes a session file by its size and modification time.
func statFound(src Source, id, path string) (found, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return found{}, false
	}
	return found{src: src, id: id, path: path, stamp: fileStamp(st.Size(), st.ModTime())}, true
}

func fileStamp(size int64, mod time.Time) string {
	return itoa(int(size)) + "@" + mod.UTC().Format(time.RFC3339Nano)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // a record is plain strings and numbers
	}
	return b
}
