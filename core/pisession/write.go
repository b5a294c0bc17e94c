package pisession

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// errNoLocking: the file system has no advisory locks; appends go ahead
// on O_APPEND alone.
var errNoLocking = errors.New("no advisory locks here")

// lockFile takes the file's advisory lock, waiting for other pi-tui writers
// (who hold it only for the microseconds of one append) until ctx ends.
func (s *state) lockFile(ctx context.Context) (release func(), err error) {
	wait := 20 * time.Microsecond
	for {
		ok, err := tryLock(s.f)
		if errors.Is(err, errNoLocking) {
			return func() {}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", s.path, err)
		}
		if ok {
			f := s.f
			return func() { unlockFile(f) }, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("wait for another writer of %s: %w", s.path, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 5*time.Millisecond)
	}
}

// Refresh reads the entries other writers appended since this Session last
// looked and returns them in file order. When they continue the active
// branch (the newest one descends from this Session's leaf), the leaf moves
// to the newest one, so the conversation goes on where the other writer
// left it; entries on other branches leave the leaf alone.
//
// If the file was replaced or shrank (pi rewrites old-format files when it
// opens them), it is read again from the start, and the entries with ids
// not seen before are returned.
func (s *Session) Refresh(ctx context.Context) ([]Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.deferred {
		return nil, nil
	}
	arrived, _, err := s.refreshLocked(false)
	return arrived, err
}

// refreshLocked reads new lines; size is the file size it read up to. A
// last line without its newline is taken only if takeLast.
func (s *state) refreshLocked(takeLast bool) (arrived []Entry, size int64, err error) {
	fi, err := s.f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", s.path, err)
	}
	pfi, err := os.Stat(s.path)
	if err != nil {
		return nil, 0, fmt.Errorf("the session file %s is gone (%w); reopen the session", s.path, err)
	}
	if !os.SameFile(fi, pfi) || pfi.Size() < s.offset || pfi.Size() != s.offset && !s.headerUnchanged() {
		return s.reloadLocked()
	}
	size = fi.Size()
	if size > s.opts.MaxFileBytes {
		return nil, size, fmt.Errorf("read %s: %w", s.path, &tooLargeError{size: size, maxBytes: s.opts.MaxFileBytes})
	}
	start := len(s.nodes)
	oldLeaf := s.leaf
	err = s.readLocked(size, takeLast)
	s.settle()
	if err != nil {
		return nil, size, fmt.Errorf("read %s: %w", s.path, err)
	}
	if len(s.nodes) == start {
		return nil, size, nil
	}
	if s.relinked {
		s.relinked = false
		if cyc := s.findCycle(); cyc != "" && s.damaged == "" {
			s.damaged = "entries another writer added make a cycle: " + cyc
		}
	}
	for i := start; i < len(s.nodes); i++ {
		if !s.nodes[i].own {
			arrived = append(arrived, s.entry(int32(i)))
		}
	}
	if fl := s.fileLeaf(); fl >= 0 && s.descends(fl, oldLeaf, start) {
		s.leaf = fl
	}
	return arrived, size, nil
}

// settledRefresh refreshes before a write. A partial last line is either
// torn for good (a writer crashed) or another writer's line caught in the
// middle of its write: pi takes no lock, and a line that crosses a page
// boundary lands in two steps. Only a torn line may get the newline that
// keeps the next line from gluing onto it (an in-flight one would end up
// followed by a blank line, harmless but untidy), so a partial line is
// given a few milliseconds to finish first.
func (s *state) settledRefresh(ctx context.Context) ([]Entry, int64, error) {
	arrived, size, err := s.refreshLocked(false)
	wait := 10 * time.Microsecond
	for tries := 0; err == nil && size > s.offset && tries < 10; tries++ {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return arrived, size, ctx.Err()
		case <-t.C:
		}
		wait *= 2
		var more []Entry
		more, size, err = s.refreshLocked(false)
		arrived = append(arrived, more...)
	}
	if err == nil && size > s.offset {
		// Torn for good; a whole entry that only lacks its newline is
		// taken, as pi takes it.
		var more []Entry
		more, size, err = s.refreshLocked(true)
		arrived = append(arrived, more...)
	}
	return arrived, size, err
}

// headerUnchanged reports whether the file still starts with the header
// read at open: pi upgrades old files by rewriting them in place, which
// the size alone may not show.
func (s *state) headerUnchanged() bool {
	h := s.header.Raw
	if len(h) == 0 || s.f == nil {
		return true
	}
	buf := make([]byte, len(h))
	n, _ := s.f.ReadAt(buf, s.headerOff)
	return n == len(h) && bytes.Equal(buf, h)
}

// descends reports whether i is anc or below it. With anc = -1 (before the
// first entry) only a session that had no entries before counts.
func (s *state) descends(i, anc int32, before int) bool {
	if anc < 0 {
		return before == 0
	}
	for steps := 0; i >= 0 && steps <= len(s.nodes); steps++ {
		if i == anc {
			return true
		}
		i = s.nodes[i].parent
	}
	return false
}

// reloadLocked reads a replaced file from the start.
func (s *state) reloadLocked() ([]Entry, int64, error) {
	flag := os.O_RDWR | os.O_APPEND
	if s.readOnly {
		flag = os.O_RDONLY
	}
	f, err := os.OpenFile(s.path, flag|openNonblock, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("reopen %s: %w", s.path, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("reopen %s: it is no longer a regular file", s.path)
	}
	fresh := state{opts: s.opts, path: s.path, f: f, readOnly: s.readOnly}
	if err := fresh.loadLocked(); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("reread %s after it was replaced: %w", s.path, err)
	}
	var arrived []Entry
	for i := range fresh.nodes {
		if _, known := s.byID[fresh.nodes[i].id]; !known {
			arrived = append(arrived, fresh.entry(int32(i)))
		}
	}
	// Keep this Session's place, following the file's leaf when it
	// continues that branch (as refreshLocked does).
	if s.leaf >= 0 {
		if i, ok := fresh.byID[s.nodes[s.leaf].id]; ok {
			fresh.leaf = i
			if fl := fresh.fileLeaf(); fl >= 0 && fresh.descends(fl, i, 1) {
				fresh.leaf = fl
			}
		}
	} else if len(s.nodes) > 0 {
		fresh.leaf = -1 // moved before the first entry on purpose
	}
	s.f.Close()
	*s = fresh
	return arrived, s.offset, nil
}

// AppendOptions change where an entry goes.
type AppendOptions struct {
	// AtFileLeaf parents the entry on the file's last entry as it is now,
	// after reading what others appended (pi's own notion of the leaf),
	// rather than on this Session's leaf.
	AtFileLeaf bool
}

// Appended is the result of an append: the new entry, and the entries other
// writers had appended, which were read first (show them).
type Appended struct {
	Entry   Entry
	Arrived []Entry
}

// Append adds an entry of type typ whose parent is the leaf and makes it
// the leaf. fields must marshal to a JSON object (or be nil); its members
// follow type, id, parentId and timestamp, which the session sets. Only the
// new line is written, with a single write to the end of the file (and a
// newline first when the file's last line was left unterminated, so the
// new line never glues onto a torn one).
func (s *Session) Append(ctx context.Context, typ string, fields any, o AppendOptions) (Appended, error) {
	if typ == "" || typ == TypeSession {
		return Appended{}, fmt.Errorf("append to session: %q is not an entry type", typ)
	}
	body, err := payloadMembers(fields)
	if err != nil {
		return Appended{}, fmt.Errorf("append %s to session: %w", typ, err)
	}
	return s.locked(ctx, func(arrived []Entry, size int64) (Appended, error) {
		parent := s.leaf
		if o.AtFileLeaf {
			parent = s.fileLeaf()
		}
		i, more, err := s.writeEntryLocked(typ, body, parent, size)
		arrived = append(arrived, more...)
		if err != nil {
			return Appended{Arrived: arrived}, err
		}
		s.leaf = i
		if s.deferred && s.nodes[i].role == roleAssistant {
			// pi's rule: the file appears with the first assistant reply.
			if err := s.flushLocked(); err != nil {
				return Appended{Entry: s.entry(i), Arrived: arrived}, err
			}
		}
		return Appended{Entry: s.entry(i), Arrived: arrived}, nil
	})
}

// locked runs write with the session and its file locked, after reading
// what other writers appended (arrived) and the file's size as read. A
// session not yet on disk takes no file lock and reads nothing.
func (s *Session) locked(ctx context.Context, write func(arrived []Entry, size int64) (Appended, error)) (Appended, error) {
	if err := ctx.Err(); err != nil {
		return Appended{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable(ctx); err != nil {
		return Appended{}, err
	}
	var arrived []Entry
	var size int64
	if !s.deferred {
		release, err := s.lockFile(ctx)
		if err != nil {
			return Appended{}, err
		}
		defer release()
		if arrived, size, err = s.settledRefresh(ctx); err != nil {
			return Appended{Arrived: arrived}, err
		}
	}
	return write(arrived, size)
}

// writable checks that the session can take a write and brings an old
// format file up to version 3 first.
func (s *state) writable(ctx context.Context) error {
	switch {
	case s.closed:
		return ErrClosed
	case s.readOnly:
		return fmt.Errorf("%s: %w", s.path, ErrReadOnly)
	case s.upgrade:
		return s.upgradeLocked(ctx)
	}
	return nil
}

// payloadMembers marshals fields and returns the members inside its braces.
func payloadMembers(fields any) ([]byte, error) {
	var raw []byte
	switch v := fields.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return payloadMembers([]byte(v))
	case []byte:
		// Caller's JSON may be indented; a line must hold no newline.
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			return nil, fmt.Errorf("the payload is not valid JSON: %w", err)
		}
		raw = b.Bytes()
	default:
		var err error
		if raw, err = jsonMarshal(fields); err != nil {
			return nil, err
		}
	}
	bad := false
	err := eachMember(raw, func(m *member) bool {
		switch m.keyString() {
		case "type", "id", "parentId", "timestamp":
			bad = true
			return false
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("the payload is not a JSON object: %w", err)
	}
	if bad {
		return nil, errBaseMember
	}
	raw = bytes.TrimSpace(raw)
	return bytes.TrimSpace(raw[1 : len(raw)-1]), nil
}

// buildLine writes an entry line (without newline); tsOff is where the
// timestamp's JSON value starts.
func buildLine(typ, id, parentID, ts string, body []byte) (line []byte, tsOff int) {
	b := make([]byte, 0, 96+len(typ)+len(body))
	b = append(b, `{"type":`...)
	tb, _ := jsonMarshal(typ)
	b = append(b, tb...)
	b = append(b, `,"id":"`...)
	b = append(b, id...)
	b = append(b, `","parentId":`...)
	if parentID == "" {
		b = append(b, "null"...)
	} else {
		pb, _ := jsonMarshal(parentID)
		b = append(b, pb...)
	}
	b = append(b, `,"timestamp":`...)
	tsOff = len(b)
	b = append(b, '"')
	b = append(b, ts...)
	b = append(b, '"')
	if len(body) > 0 {
		b = append(b, ',')
		b = append(b, body...)
	}
	return append(b, '}'), tsOff
}

// writeEntryLocked writes one entry under parent (an index, or -1) and
// returns its index. The caller holds the file lock and has refreshed up to
// size (see settledRefresh).
func (s *state) writeEntryLocked(typ string, body []byte, parent int32, size int64) (int32, []Entry, error) {
	id, err := newEntryID(s.opts.Rand, func(id string) bool {
		_, taken := s.byID[id]
		return taken
	})
	if err != nil {
		return -1, nil, err
	}
	return s.writeLineLocked(typ, id, FormatTimestamp(s.opts.Now()), body, parent, size)
}

// writeLineLocked writes the entry id, dated ts, under parent (an index,
// or -1); see writeEntryLocked.
func (s *state) writeLineLocked(typ, id, ts string, body []byte, parent int32, size int64) (int32, []Entry, error) {
	parentID := ""
	if parent >= 0 {
		parentID = s.nodes[parent].id
	}
	line, tsOff := buildLine(typ, id, parentID, ts, body)
	n := node{raw: line, id: id, parentID: parentID, typ: typ, parent: -1, own: true,
		tsOff: int32(tsOff), tsLen: int32(len(ts) + 2)}
	if typ == TypeMessage {
		if msg := findMember(line, "message"); msg != nil {
			n.role = roleOf(msg)
		}
	}
	if s.deferred {
		s.lines++
		n.line = s.lines
		s.pending = append(s.pending, line)
		i := s.insert(n)
		s.settle()
		return i, nil, nil
	}
	if s.beforeWrite != nil {
		s.beforeWrite()
	}
	fi, err := s.f.Stat()
	if err != nil {
		return -1, nil, fmt.Errorf("append to %s: %w", s.path, err)
	}
	size0 := fi.Size()
	torn := size > s.offset // a partial line nobody finished
	data := make([]byte, 0, len(line)+2)
	if torn || s.needNL {
		data = append(data, '\n')
	}
	data = append(append(data, line...), '\n')
	if _, err := s.f.Write(data); err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			// Say what to do, not "no space left on device" deep in a
			// sentence; a partial line left behind counts as torn.
			return -1, nil, fmt.Errorf("append to %s: the disk is full; free some space and try again: %w", s.path, err)
		}
		return -1, nil, fmt.Errorf("append to %s: %w", s.path, err)
	}
	if fi, err = s.f.Stat(); err == nil && size0 == size && fi.Size() == size0+int64(len(data)) {
		// Nobody wrote since the refresh: the file is exactly what was
		// read plus this line.
		if torn {
			s.lines++
			if !s.tornWarned {
				s.warn(fmt.Sprintf("line %d was left incomplete by a write cut short; it is skipped", s.lines))
			}
			s.tornWarned = false
		}
		s.lines++
		n.line = s.lines
		s.offset, s.needNL = fi.Size(), false
		i := s.insert(n)
		s.settle()
		return i, nil, nil
	}
	// Another writer (pi takes no lock) wrote around this line: read the
	// file in order and find this line in it.
	if s.ownPending == nil {
		s.ownPending = map[string][]byte{}
	}
	s.ownPending[id] = line
	arrived, _, err := s.refreshLocked(false)
	if err != nil {
		return -1, arrived, err
	}
	i, ok := s.byID[id]
	if !ok {
		return -1, arrived, fmt.Errorf("append to %s: the line was written but is not in the file when read back", s.path)
	}
	return i, arrived, nil
}

// Flush creates the file of a deferred session and writes everything held
// so far. pi-tui calls it once the first prompt is sent ("a session exists
// once its first prompt is sent"); it is a no-op once the file exists.
func (s *Session) Flush(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if !s.deferred {
		return nil
	}
	return s.flushLocked()
}

// flushLocked creates the file with O_EXCL (never overwriting one) and
// writes the held lines in one write.
func (s *state) flushLocked() error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("create session folder: %w", err)
	}
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create session file: %w", err)
	}
	var b bytes.Buffer
	for _, l := range s.pending {
		b.Write(l)
		b.WriteByte('\n')
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		os.Remove(s.path)
		return fmt.Errorf("write session file %s: %w", s.path, err)
	}
	s.f = f
	s.offset = int64(b.Len())
	s.deferred = false
	s.pending = nil
	return nil
}

// Branch moves the leaf to the entry id ("" = before the first entry): the
// next append's parent is that entry, and the entries after it stay in the
// tree on their own branch.
//
// pi keeps no leaf pointer in the file: reopening, it continues from the
// file's last entry. So unless id already is that entry, Branch appends a
// custom entry (customType "pi-tui.leaf", never sent to the model, hidden
// in pi's tree) whose parent is id; pi then reopens on the same branch, and
// pi-tui reads the marker's parent as the leaf.
func (s *Session) Branch(ctx context.Context, id string) (Appended, error) {
	return s.branchTo(ctx, id, func(target int32, size int64, arrived []Entry) (Appended, error) {
		if s.fileLeaf() == target {
			s.leaf = target
			return Appended{Arrived: arrived}, nil
		}
		body, _ := payloadMembers(map[string]string{"customType": leafMarkerType})
		i, more, err := s.writeEntryLocked(TypeCustom, body, target, size)
		arrived = append(arrived, more...)
		if err != nil {
			return Appended{Arrived: arrived}, err
		}
		s.leaf = target
		return Appended{Entry: s.entry(i), Arrived: arrived}, nil
	})
}

// branchTo runs write for a move to the entry id ("" = the start), with
// the session and the file locked and other writers' lines read first;
// target is id's index (-1 for the start), size the file's size as read.
func (s *Session) branchTo(ctx context.Context, id string, write func(target int32, size int64, arrived []Entry) (Appended, error)) (Appended, error) {
	return s.locked(ctx, func(arrived []Entry, size int64) (Appended, error) {
		target := int32(-1)
		if id != "" {
			i, ok := s.byID[id]
			if !ok {
				return Appended{Arrived: arrived}, fmt.Errorf("session %s has no entry %s: %w", s.header.ID, id, ErrNoEntry)
			}
			target = i
		}
		return write(target, size, arrived)
	})
}

// AppendMessage appends a message entry.
func (s *Session) AppendMessage(ctx context.Context, m Message) (Appended, error) {
	return s.Append(ctx, TypeMessage, struct {
		Message Message `json:"message"`
	}{m}, AppendOptions{})
}

// AppendModelChange records a switch of model.
func (s *Session) AppendModelChange(ctx context.Context, provider, modelID string) (Appended, error) {
	return s.Append(ctx, TypeModelChange, ModelChange{Provider: provider, ModelID: modelID}, AppendOptions{})
}

// AppendThinkingLevelChange records a switch of thinking level.
func (s *Session) AppendThinkingLevelChange(ctx context.Context, level string) (Appended, error) {
	return s.Append(ctx, TypeThinkingLevelChange, ThinkingLevelChange{ThinkingLevel: level}, AppendOptions{})
}

// AppendCompaction records a compaction; the context then starts with its
// summary (see Context).
func (s *Session) AppendCompaction(ctx context.Context, c Compaction) (Appended, error) {
	return s.Append(ctx, TypeCompaction, c, AppendOptions{})
}

// AppendCustom records extension state that is never sent to the model.
func (s *Session) AppendCustom(ctx context.Context, customType string, data any) (Appended, error) {
	raw, err := jsonMarshal(data)
	if err != nil {
		return Appended{}, fmt.Errorf("append custom %s: %w", customType, err)
	}
	if data == nil {
		raw = nil
	}
	return s.Append(ctx, TypeCustom, Custom{CustomType: customType, Data: raw}, AppendOptions{})
}

// AppendCustomMessage records extension text that is sent to the model.
func (s *Session) AppendCustomMessage(ctx context.Context, m CustomMessage) (Appended, error) {
	return s.Append(ctx, TypeCustomMessage, m, AppendOptions{})
}

// SetLabel labels an entry (an empty label clears it).
func (s *Session) SetLabel(ctx context.Context, targetID, label string) (Appended, error) {
	if _, ok := s.Get(targetID); !ok {
		return Appended{}, fmt.Errorf("label: session has no entry %s: %w", targetID, ErrNoEntry)
	}
	return s.Append(ctx, TypeLabel, Label{TargetID: targetID, Label: label}, AppendOptions{})
}

// SetName names the session (an empty name clears it), as pi's
// set_session_name does: a session_info entry.
func (s *Session) SetName(ctx context.Context, name string) (Appended, error) {
	return s.Append(ctx, TypeSessionInfo, SessionInfo{Name: trimSpace(name)}, AppendOptions{})
}

// BranchWithSummary moves to the entry id ("" = the start) and appends a
// branch_summary there, so the model hears about the branch it left (pi's
// tree navigation with a summary). fromId is written as pi 0.85 writes it:
// the tip of the branch left behind, or "root".
func (s *Session) BranchWithSummary(ctx context.Context, id, summary string, details json.RawMessage) (Appended, error) {
	return s.branchTo(ctx, id, func(target int32, size int64, arrived []Entry) (Appended, error) {
		from := "root"
		if s.leaf >= 0 {
			from = s.nodes[s.leaf].id
		}
		body, err := payloadMembers(BranchSummary{FromID: from, Summary: summary, Details: details})
		if err != nil {
			return Appended{Arrived: arrived}, err
		}
		i, more, err := s.writeEntryLocked(TypeBranchSummary, body, target, size)
		arrived = append(arrived, more...)
		if err != nil {
			return Appended{Arrived: arrived}, err
		}
		s.leaf = i
		return Appended{Entry: s.entry(i), Arrived: arrived}, nil
	})
}
