package pisession

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Files of format versions 1 and 2 (older pi) are read as version 3 in
// memory the way pi migrates them: version 1 entries have no ids, so each
// gets one and its parent is the entry before it, and a compaction's
// firstKeptEntryIndex becomes firstKeptEntryId; version 2's "hookMessage"
// role became "custom". pi rewrites such a file as soon as it opens it;
// pi-tui rewrites it only before its first change, so merely looking
// changes nothing. The rewrite edits the lines member by member, so every
// member pi-tui does not know is kept.

func (s *state) migrateInMemory() {
	v := s.header.Version
	s.warn(olderVersionText(v))
	s.upgrade = true
	if v >= 2 {
		return
	}
	s.byID = make(map[string]int32, len(s.nodes))
	prev := ""
	for i := range s.nodes {
		n := &s.nodes[i]
		id, err := newEntryID(s.opts.Rand, func(id string) bool { _, t := s.byID[id]; return t })
		if err != nil {
			s.warn(err.Error())
			continue
		}
		n.id, n.parentID = id, prev
		s.byID[id] = int32(i)
		prev = id
	}
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.typ != TypeCompaction {
			continue
		}
		if raw := findMember(n.raw, "firstKeptEntryIndex"); raw != nil {
			// The index counts the header as 0, like pi's array of lines.
			if k, err := strconv.Atoi(string(raw)); err == nil && k >= 1 && k-1 < len(s.nodes) {
				if s.firstKept == nil {
					s.firstKept = map[int32]string{}
				}
				s.firstKept[int32(i)] = s.nodes[k-1].id
			}
		}
	}
}

// upgradedLine returns node i's line as version 3.
func (s *state) upgradedLine(i int) ([]byte, error) {
	n := &s.nodes[i]
	var set []Member
	var drop []string
	if s.header.Version < 2 {
		set = append(set, Member{Key: "id", Value: mustJSON(n.id)})
		parent := json.RawMessage("null")
		if n.parentID != "" {
			parent = mustJSON(n.parentID)
		}
		set = append(set, Member{Key: "parentId", Value: parent})
		if id, ok := s.firstKept[int32(i)]; ok {
			set = append(set, Member{Key: "firstKeptEntryId", Value: mustJSON(id)})
		}
		if n.typ == TypeCompaction {
			drop = append(drop, "firstKeptEntryIndex")
		}
	}
	if n.typ == TypeMessage {
		if msg := findMember(n.raw, "message"); msg != nil {
			if role := findMember(msg, "role"); role != nil && rawStringEquals(role, "hookMessage") {
				m, err := editObject(msg, []Member{{Key: "role", Value: json.RawMessage(`"custom"`)}})
				if err != nil {
					return nil, err
				}
				set = append(set, Member{Key: "message", Value: m})
			}
		}
	}
	if len(set) == 0 && len(drop) == 0 {
		return n.raw, nil
	}
	return editObject(n.raw, set, drop...)
}

func mustJSON(s string) json.RawMessage {
	b, _ := jsonMarshal(s)
	return b
}

// upgradeLocked rewrites an old-format file as version 3 (temp file and
// rename, under the append lock) and reads it again.
func (s *state) upgradeLocked(ctx context.Context) error {
	release, err := s.lockFile(ctx)
	if err != nil {
		return err
	}
	defer release()
	if _, _, err := s.settledRefresh(ctx); err != nil {
		return err
	}
	if !s.upgrade {
		return nil // another process upgraded it; the refresh reread it
	}
	var b bytes.Buffer
	hdr, err := editObject(s.header.Raw, []Member{{Key: "version", Value: json.RawMessage(strconv.Itoa(Version))}})
	if err != nil {
		return fmt.Errorf("upgrade %s: %w", s.path, err)
	}
	b.Write(hdr)
	b.WriteByte('\n')
	for i := range s.nodes {
		l, err := s.upgradedLine(i)
		if err != nil {
			return fmt.Errorf("upgrade %s: line %d: %w", s.path, s.nodes[i].line, err)
		}
		b.Write(l)
		b.WriteByte('\n')
	}
	mode := fs.FileMode(0o600)
	if fi, err := s.f.Stat(); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := writeTemp(filepath.Dir(s.path), b.Bytes(), mode)
	if err != nil {
		return fmt.Errorf("upgrade %s: %w", s.path, err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("upgrade %s: %w", s.path, err)
	}
	if _, _, err := s.reloadLocked(); err != nil {
		return err
	}
	return nil
}

// writeTemp writes data to a new temporary file in dir, synced to disk,
// and returns its path.
func writeTemp(dir string, data []byte, mode fs.FileMode) (string, error) {
	return writeTempSync(dir, data, mode, true)
}

// writeTempSync is writeTemp, syncing only when sync is true.
func writeTempSync(dir string, data []byte, mode fs.FileMode, sync bool) (string, error) {
	f, err := os.CreateTemp(dir, ".pi-tui-session-*.tmp")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// Draft is one entry of a session written whole by WriteSession.
type Draft struct {
	Type      string
	ID        string // unique in the session; pi uses 8 hex characters
	ParentID  string // "" for a root; otherwise an entry earlier in the list
	Timestamp time.Time
	Fields    any // the type's members, as for Session.Append
}

// SessionDraft is a whole session for WriteSession.
type SessionDraft struct {
	ID            string    // a fresh UUIDv7 (from Created) when empty
	Created       time.Time // the header's timestamp; it also names the file
	Cwd           string
	ParentSession string
	Entries       []Draft
}

// WriteSession writes a whole session as a new file in dir, in one go: the
// lines go to a temporary file that is synced and then linked to its final
// name, which must not exist yet (a session file is never overwritten). It
// is meant for moving sessions from another store once. Every parent must
// come before its child, so the file is a tree as written.
func WriteSession(ctx context.Context, dir string, d SessionDraft, opts Options) (string, error) {
	opts = opts.withDefaults()
	if d.Created.IsZero() {
		d.Created = opts.Now()
	}
	if d.ID == "" {
		id, err := newUUIDv7(d.Created, opts.Rand)
		if err != nil {
			return "", err
		}
		d.ID = id
	}
	if !validSessionID(d.ID) {
		return "", fmt.Errorf("write session: id %q may hold only letters, digits, '.', '_' and '-'", d.ID)
	}
	ts := FormatTimestamp(d.Created)
	w := newObjWriter()
	w.str("type", TypeSession)
	w.val("version", Version)
	w.str("id", d.ID)
	w.str("timestamp", ts)
	w.str("cwd", d.Cwd)
	w.strIf("parentSession", d.ParentSession)
	hdr, err := w.done()
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	b.Write(hdr)
	b.WriteByte('\n')
	seen := make(map[string]bool, len(d.Entries))
	for k, e := range d.Entries {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		switch {
		case e.Type == "" || e.Type == TypeSession:
			return "", fmt.Errorf("write session %s: entry %d has type %q", d.ID, k+1, e.Type)
		case e.ID == "":
			return "", fmt.Errorf("write session %s: entry %d has no id", d.ID, k+1)
		case seen[e.ID]:
			return "", fmt.Errorf("write session %s: entry id %s is used twice", d.ID, e.ID)
		case e.ParentID != "" && !seen[e.ParentID]:
			return "", fmt.Errorf("write session %s: entry %s names parent %s, which is not an earlier entry", d.ID, e.ID, e.ParentID)
		}
		seen[e.ID] = true
		body, err := payloadMembers(e.Fields)
		if err != nil {
			return "", fmt.Errorf("write session %s: entry %s: %w", d.ID, e.ID, err)
		}
		t := e.Timestamp
		if t.IsZero() {
			t = d.Created
		}
		line, _ := buildLine(e.Type, e.ID, e.ParentID, FormatTimestamp(t), body)
		b.Write(line)
		b.WriteByte('\n')
	}
	return writeNewSync(dir, filepath.Join(dir, FileName(ts, d.ID)), b.Bytes(), !opts.Unsynced)
}

// writeNew writes data as the new file final in dir: to a temporary file
// that is synced and then linked to final, which must not exist yet (a
// session file is never overwritten).
func writeNew(dir, final string, data []byte) (string, error) {
	return writeNewSync(dir, final, data, true)
}

// writeNewSync is writeNew, syncing the file and its folder only when sync
// is true.
func writeNewSync(dir, final string, data []byte, sync bool) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("write session: %w", err)
	}
	tmp, err := writeTempSync(dir, data, 0o600, sync)
	if err != nil {
		return "", fmt.Errorf("write session %s: %w", final, err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, final); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("write session: %s already exists; it was left as it is: %w", final, fs.ErrExist)
		}
		// No hard links here: claim the name with O_EXCL and write it.
		f, cerr := os.OpenFile(final, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if cerr != nil {
			return "", fmt.Errorf("write session %s: %w", final, cerr)
		}
		_, werr := f.Write(data)
		if werr == nil && sync {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(final)
			return "", fmt.Errorf("write session %s: %w", final, werr)
		}
	}
	if sync {
		syncDir(dir)
	}
	return final, nil
}

// syncDir makes a new name durable; best effort (not every system can).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// AppendDrafts appends entries made elsewhere (another agent's session,
// imported) with their own ids, parents and times, in order; the last
// becomes the leaf. A parent must be in the file or earlier in ds, and an
// id must be new to the file. Each line is written as Append writes one.
func (s *Session) AppendDrafts(ctx context.Context, ds []Draft) (Appended, error) {
	bodies := make([][]byte, len(ds))
	for k, d := range ds {
		if d.Type == "" || d.Type == TypeSession || d.ID == "" {
			return Appended{}, fmt.Errorf("append to session: entry %d has type %q and id %q", k+1, d.Type, d.ID)
		}
		body, err := payloadMembers(d.Fields)
		if err != nil {
			return Appended{}, fmt.Errorf("append %s to session: %w", d.Type, err)
		}
		bodies[k] = body
	}
	return s.locked(ctx, func(arrived []Entry, size int64) (Appended, error) {
		var last int32 = -1
		for k, d := range ds {
			if err := ctx.Err(); err != nil {
				return Appended{Arrived: arrived}, err
			}
			if _, taken := s.byID[d.ID]; taken {
				return Appended{Arrived: arrived}, fmt.Errorf("append to %s: entry id %s is already in the file", s.path, d.ID)
			}
			parent := int32(-1)
			if d.ParentID != "" {
				p, ok := s.byID[d.ParentID]
				if !ok {
					return Appended{Arrived: arrived}, fmt.Errorf("append to %s: entry %s names parent %s, which is not in the file", s.path, d.ID, d.ParentID)
				}
				parent = p
			}
			t := d.Timestamp
			if t.IsZero() {
				t = s.opts.Now()
			}
			if k > 0 {
				// Every line after the first is measured from this one.
				size = s.offset
			}
			i, more, err := s.writeLineLocked(d.Type, d.ID, FormatTimestamp(t), bodies[k], parent, size)
			arrived = append(arrived, more...)
			if err != nil {
				return Appended{Arrived: arrived}, err
			}
			last = i
		}
		if last < 0 {
			return Appended{Arrived: arrived}, nil
		}
		s.leaf = last
		return Appended{Entry: s.entry(last), Arrived: arrived}, nil
	})
}
