package pisession

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLineBytes bounds one line of a session file. A longer line is
// skipped with a warning (and stays in the file); reading it never holds
// more than this much of it in memory.
const DefaultMaxLineBytes = 64 << 20

// Files are read in blocks that entries then share, so a session costs one
// allocation per block rather than one per line. Blocks are small enough
// that the partial line a block ends with (copied into the next one, while
// the earlier entries keep the old block alive) wastes little.
const (
	minBlock = 64 << 10
	maxBlock = 1 << 20
)

// rawLine is one line of a file.
type rawLine struct {
	b          []byte // without the newline; nil when tooLong
	off        int64  // file offset of the line's first byte
	n          int64  // bytes the line occupies, its newline included
	terminated bool   // it ends in '\n'
	tooLong    bool   // longer than the limit; skipped unread
}

// lineReader splits the byte range [pos, end) of a file into lines. Lines
// are slices of large blocks that are never written again, so they can be
// kept as entries' raw bytes without copying.
type lineReader struct {
	r       io.ReaderAt
	pos     int64 // next offset to read
	end     int64
	buf     []byte // buffered bytes; buf[head:] not yet returned
	head    int
	bufOff  int64 // file offset of buf[0]
	maxLine int
	scratch []byte // for measuring and skipping long lines
	// forceLong: the pending line is known to run past the limit.
	forceLong bool
	// minBlock and maxBlock are the package's constants, smaller in tests
	// so that small inputs cross block boundaries.
	minBlock, maxBlock int64
	// reuse: a line is only valid until the next call, so the buffer is
	// read into again rather than replaced. For reading a file as a stream
	// (listing): it holds one block, or the longest line up to the limit,
	// whatever the file's size.
	reuse bool
}

func newLineReader(r io.ReaderAt, from, to int64, maxLine int) *lineReader {
	return &lineReader{r: r, pos: from, end: to, bufOff: from, maxLine: maxLine, minBlock: minBlock, maxBlock: maxBlock}
}

// next returns the next line; ok is false at the end of the range.
func (lr *lineReader) next() (l rawLine, ok bool, err error) {
	for {
		if lr.head < len(lr.buf) {
			if i := bytes.IndexByte(lr.buf[lr.head:], '\n'); i >= 0 {
				s := lr.head
				lr.head += i + 1
				l = rawLine{off: lr.bufOff + int64(s), n: int64(i + 1), terminated: true}
				if i > lr.maxLine {
					l.tooLong = true
				} else {
					l.b = lr.buf[s : s+i : s+i]
				}
				return l, true, nil
			}
		}
		pending := len(lr.buf) - lr.head
		if lr.pos >= lr.end {
			if pending == 0 {
				return rawLine{}, false, nil
			}
			s := lr.head
			lr.head = len(lr.buf)
			l = rawLine{off: lr.bufOff + int64(s), n: int64(pending)}
			if pending > lr.maxLine {
				l.tooLong = true
			} else {
				l.b = lr.buf[s:len(lr.buf):len(lr.buf)]
			}
			return l, true, nil
		}
		if pending > lr.maxLine || lr.forceLong {
			lr.forceLong = false
			return lr.skipLong()
		}
		if err := lr.fill(pending); err != nil {
			return rawLine{}, false, err
		}
	}
}

// fill reads the next block, carrying the pending partial line over. A
// line longer than a block is first measured (reading ahead in a small
// scratch buffer) and then read into one allocation of its own size, so it
// is never copied from buffer to growing buffer; one over the limit is not
// held at all.
func (lr *lineReader) fill(pending int) error {
	left := lr.end - lr.pos
	size := int64(pending) + min(left, lr.maxBlock)
	if int64(pending) >= lr.minBlock/2 {
		d, found, err := lr.measure(int64(lr.maxLine - pending))
		if err != nil {
			return err
		}
		if !found && d > int64(lr.maxLine-pending) {
			size = -1 // over the limit: the caller skips it
		} else {
			size = int64(pending) + d + min(left-d, lr.minBlock)
		}
	}
	if size < 0 {
		lr.forceLong = true // next() skips it
		return nil
	}
	nb := lr.block(size)
	n, err := lr.r.ReadAt(nb[pending:], lr.pos)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read at byte %d: %w", lr.pos, err)
	}
	if n < len(nb)-pending {
		// The file is shorter than it was a moment ago; stop there.
		lr.end = lr.pos + int64(n)
	}
	lr.bufOff = lr.pos - int64(pending)
	lr.pos += int64(n)
	lr.buf = nb[:pending+n]
	lr.head = 0
	return nil
}

// block returns a buffer of size bytes that starts with the pending
// partial line. Unless lr.reuse it is a new one, since earlier lines point
// into the old one; with reuse the old one is used again when it is large
// enough and not more than twice too large (a long line's buffer is let go
// after it).
func (lr *lineReader) block(size int64) []byte {
	pending := lr.buf[lr.head:]
	if lr.reuse && size <= int64(cap(lr.buf)) && (int64(cap(lr.buf)) <= lr.maxBlock+lr.minBlock || int64(cap(lr.buf)) <= 2*size) {
		nb := lr.buf[:size]
		copy(nb, pending) // moves the partial line to the front
		return nb
	}
	c := size
	if lr.reuse {
		// Room for a block after this one, unless the file ends first.
		c = max(c, min(lr.maxBlock+lr.minBlock, int64(len(pending))+lr.end-lr.pos))
	}
	nb := make([]byte, size, c)
	copy(nb, pending)
	return nb
}

// measure returns how many bytes from lr.pos up to and including the next
// newline (found) or to the end of the range, looking at most limit+1
// bytes ahead.
func (lr *lineReader) measure(limit int64) (d int64, found bool, err error) {
	lr.scratchBuf()
	for lr.pos+d < lr.end && d <= limit {
		want := min(int64(len(lr.scratch)), lr.end-lr.pos-d)
		n, err := lr.r.ReadAt(lr.scratch[:want], lr.pos+d)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, false, fmt.Errorf("read at byte %d: %w", lr.pos+d, err)
		}
		if n == 0 {
			break
		}
		if i := bytes.IndexByte(lr.scratch[:n], '\n'); i >= 0 {
			return d + int64(i) + 1, true, nil
		}
		d += int64(n)
	}
	return d, false, nil
}

// scratchBuf makes the buffer measure and skipLong read ahead in: small
// when lines are kept (it is held beside them), a block when streaming,
// where a long line is passed over in fewer reads.
func (lr *lineReader) scratchBuf() {
	if lr.scratch == nil {
		n := lr.minBlock
		if lr.reuse {
			n = lr.maxBlock
		}
		lr.scratch = make([]byte, n)
	}
}

// skipLong passes over the rest of a line already longer than the limit.
func (lr *lineReader) skipLong() (rawLine, bool, error) {
	l := rawLine{off: lr.bufOff + int64(lr.head), tooLong: true}
	l.n = int64(len(lr.buf) - lr.head)
	lr.buf, lr.head = nil, 0
	lr.scratchBuf()
	for lr.pos < lr.end {
		want := min(int64(len(lr.scratch)), lr.end-lr.pos)
		n, err := lr.r.ReadAt(lr.scratch[:want], lr.pos)
		if err != nil && !errors.Is(err, io.EOF) {
			return rawLine{}, false, fmt.Errorf("read at byte %d: %w", lr.pos, err)
		}
		if n == 0 {
			lr.end = lr.pos
			break
		}
		if i := bytes.IndexByte(lr.scratch[:n], '\n'); i >= 0 {
			lr.pos += int64(i + 1)
			l.n += int64(i + 1)
			l.terminated = true
			lr.bufOff = lr.pos
			return l, true, nil
		}
		lr.pos += int64(n)
		l.n += int64(n)
	}
	lr.bufOff = lr.pos
	return l, true, nil
}

// isBlank reports whether a line holds only white space (pi skips those).
func isBlank(b []byte) bool { return skipWS(b, 0) == len(b) }

// Message role codes kept per entry, so that counting messages and finding
// the first assistant reply need no decoding.
const (
	roleNone uint8 = iota
	roleUser
	roleAssistant
	roleToolResult
	roleOther
	roleSystem // pi 1.x's prompt and tool checkpoints, never a conversation message
)

// entryFields is what one pass over an entry line picks out. The raw
// slices point into the line; nothing is allocated.
type entryFields struct {
	typ      string // interned for known types
	id       []byte // raw JSON value of id, nil when absent
	parentID []byte // raw JSON value of parentId, nil when absent
	ts       []byte
	tsOff    int
	msg      []byte // raw message value
	role     uint8
	version  int  // header only
	hasVer   bool // header only
}

// internType returns the constant for a known type without allocating.
func internType(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	switch string(raw[1 : len(raw)-1]) {
	case TypeMessage:
		return TypeMessage, true
	case TypeModelChange:
		return TypeModelChange, true
	case TypeThinkingLevelChange:
		return TypeThinkingLevelChange, true
	case TypeCompaction:
		return TypeCompaction, true
	case TypeBranchSummary:
		return TypeBranchSummary, true
	case TypeCustom:
		return TypeCustom, true
	case TypeCustomMessage:
		return TypeCustomMessage, true
	case TypeLabel:
		return TypeLabel, true
	case TypeSessionInfo:
		return TypeSessionInfo, true
	case TypeContextEdit:
		return TypeContextEdit, true
	case TypeUsage:
		return TypeUsage, true
	case TypeSession:
		return TypeSession, true
	}
	return stringValue(raw)
}

// scanEntry validates line as one JSON object and picks out the members the
// tree needs. A member given twice counts by its last value, as in JSON.parse.
func scanEntry(line []byte) (f entryFields, err error) {
	it := newObjIter(line)
	for m, ok := it.next(); ok; m, ok = it.next() {
		name := m.key
		if m.escaped {
			name = []byte(m.keyString())
		}
		switch string(name) {
		case "type":
			f.typ, _ = internType(m.val)
		case "id":
			f.id = m.val
		case "parentId":
			f.parentID = m.val
		case "timestamp":
			f.ts, f.tsOff = m.val, m.off
		case "message":
			f.msg = m.val
		case "version":
			var v float64
			if json.Unmarshal(m.val, &v) == nil {
				f.version, f.hasVer = int(v), true
			}
		}
	}
	if err := it.finish(); err != nil {
		return f, err
	}
	if f.typ == TypeMessage && f.msg != nil {
		f.role = roleOf(f.msg)
	}
	return f, nil
}

// plainString returns the inside of a raw JSON string that needs no
// unescaping (the usual case for ids), or ok=false.
func plainString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || needsUnquote(raw[1:len(raw)-1]) {
		return nil, false
	}
	return raw[1 : len(raw)-1], true
}

// roleOf reads a valid message object's role. pi writes role first, so
// this usually stops at the first member.
func roleOf(msg []byte) uint8 {
	v := findMember(msg, "role")
	if v == nil {
		return roleOther
	}
	switch {
	case rawStringEquals(v, RoleUser):
		return roleUser
	case rawStringEquals(v, RoleAssistant):
		return roleAssistant
	case rawStringEquals(v, RoleToolResult):
		return roleToolResult
	case rawStringEquals(v, RoleSystem):
		return roleSystem
	}
	return roleOther
}

// findMember returns the raw value of the first member named key of an
// object already known to be valid, or nil. It stops at the member.
func findMember(obj []byte, key string) []byte {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	i = skipWS(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd, esc, err := scanString(obj, i)
		if err != nil {
			return nil
		}
		m := member{key: obj[i+1 : kEnd-1], escaped: esc}
		i = skipWS(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return nil
		}
		i = skipWS(obj, i+1)
		vEnd := skipValid(obj, i) // the object was validated when it was read
		if m.keyIs(key) {
			return obj[i:vEnd:vEnd]
		}
		i = skipWS(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipWS(obj, i+1)
		}
	}
	return nil
}

// members splits a valid object into its members, raw and in order.
func members(obj []byte) ([]Member, error) {
	var out []Member
	err := eachMember(obj, func(m *member) bool {
		out = append(out, Member{Key: m.keyString(), Value: m.val})
		return true
	})
	return out, err
}

// editObject re-encodes a valid object with some members replaced, added
// (at the end) or removed, keeping every other member's bytes and order.
// Rewrites (format upgrades) go through here so unknown fields survive.
func editObject(obj []byte, set []Member, drop ...string) ([]byte, error) {
	ms, err := members(obj)
	if err != nil {
		return nil, err
	}
	w := newObjWriter()
	done := make([]bool, len(set))
outer:
	for _, m := range ms {
		for _, d := range drop {
			if m.Key == d {
				continue outer
			}
		}
		for i, s := range set {
			if s.Key == m.Key {
				if !done[i] {
					w.raw(m.Key, s.Value)
					done[i] = true
				}
				continue outer
			}
		}
		w.raw(m.Key, m.Value)
	}
	for i, s := range set {
		if !done[i] {
			w.raw(s.Key, s.Value)
		}
	}
	return w.done()
}
