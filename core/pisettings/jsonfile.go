package pisettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pi-tui/pi-tui/internal/atomicfile"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// member is one top-level key of a JSON object with its value kept as the
// exact bytes the user wrote.
type member struct {
	key   string
	value json.RawMessage
}

// Object is a JSON object whose members keep their order and their bytes,
// so pi-tui can change the keys it owns in a file it shares with pi
// without reformatting or dropping anything else.
type Object struct{ members []member }

// ParseObject reads a JSON object; anything else is an error.
func ParseObject(data []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	o := &Object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		o.Set(key, raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return o, nil
}

// Get returns a member's raw value.
func (o *Object) Get(key string) (json.RawMessage, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// Set replaces a member's value in place, or appends the member.
func (o *Object) Set(key string, value json.RawMessage) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].value = value
			return
		}
	}
	o.members = append(o.members, member{key, value})
}

// SetValue marshals v and sets it.
func (o *Object) SetValue(key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	o.Set(key, data)
	return nil
}

// Delete removes a member.
func (o *Object) Delete(key string) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members = append(o.members[:i], o.members[i+1:]...)
			return
		}
	}
}

// Bytes writes the object with one member per line, values as they were.
func (o *Object) Bytes() []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for i, m := range o.members {
		if i > 0 {
			b.WriteString(",")
		}
		key, _ := json.Marshal(m.key)
		b.WriteString("\n  ")
		b.Write(key)
		b.WriteString(": ")
		b.Write(m.value)
	}
	if len(o.members) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// objectError locates why data is not a JSON object: the line and column
// of a syntax error, or that the top level is something else.
func objectError(path string, data []byte, err error) error {
	if verr := json.Unmarshal(data, new(any)); verr != nil {
		return JSONError(path, data, verr)
	}
	if errors.Is(err, errNotObject) {
		return JSONError(path, data, errNotObject)
	}
	return &FileError{Path: path, Problem: err.Error()}
}

// maxEditSize bounds the JSON files UpdateFile rewrites.
const maxEditSize = 16 << 20

// UpdateFile applies change to the JSON object in path and writes it back
// atomically (temp file and rename, mode kept). A missing file starts as
// {}. An existing file that is not a valid JSON object is left untouched
// and reported: pi-tui never "repairs" a file it shares with pi.
func UpdateFile(path string, change func(*Object) error) error {
	o := &Object{}
	mode := fs.FileMode(0o644)
	// Opened without blocking and checked on the descriptor: a FIFO here
	// is refused, never waited on.
	data, fi, err := fsutil.ReadRegular(path, maxEditSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read %s: %w; it was left as it is", path, fsutil.PlainError(err))
	default:
		data = stripBOM(data)
		if len(bytes.TrimSpace(data)) > 0 {
			if o, err = ParseObject(data); err != nil {
				return fmt.Errorf("%w; it was left as it is: fix it by hand first", objectError(path, data, err))
			}
		}
		mode = fi.Mode().Perm()
	}
	if err := change(o); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, fsutil.PlainError(err))
	}
	// Write through a link to its target, so a dotfiles symlink survives.
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	if err := atomicfile.Write(target, o.Bytes(), mode); err != nil {
		return fmt.Errorf("write %s: %w; the file is unchanged", path, err)
	}
	return nil
}
