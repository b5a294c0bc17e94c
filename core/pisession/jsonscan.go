package pisession

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// This file holds a small validating JSON scanner. Opening a 20,000-entry
// session must not decode every message, yet a line pi would refuse
// (JSON.parse throws) must be refused here too, or the two programs would
// disagree about the tree. So the scanner checks every byte of a line
// against the JSON grammar while only picking out the few top-level members
// the tree needs (type, id, parentId, timestamp, the message role). It is
// iterative (a deep line cannot exhaust the stack) and allocates nothing on
// the common path.
//
// What counts as valid follows JSON.parse after Node has decoded the file as
// UTF-8: bytes of invalid UTF-8 inside a string become U+FFFD there and are
// accepted, so they are accepted here as well (and reported as a warning by
// the caller); outside strings only JSON's four white-space bytes may appear.

// maxDepth bounds nesting. V8's recursive JSON.parse throws on inputs nested
// far deeper than any session contains; such a line is malformed for both.
const maxDepth = 10000

var (
	errNotObject = errors.New("not a JSON object")
	errTrailing  = errors.New("text after the JSON value")
	errDepth     = errors.New("nested too deeply")
)

type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.off+1, e.msg)
}

func synErr(off int, msg string) error { return &syntaxError{off: off, msg: msg} }

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// hasSpecial reports, for 8 bytes packed little-endian, whether any byte is
// '"', '\\' or a control byte (< 0x20): the only bytes that end the fast
// path through a string.
func hasSpecial(w uint64) bool {
	const lo = 0x0101010101010101
	const hi = 0x8080808080808080
	q := w ^ (lo * '"')
	s := w ^ (lo * '\\')
	// A byte is zero in x when (x - 1) borrows into its high bit and x's high
	// bit was clear; the classic test, exact when combined with &^x.
	zq := (q - lo) &^ q & hi
	zs := (s - lo) &^ s & hi
	ctl := (w - lo*0x20) &^ w & hi
	return zq|zs|ctl != 0
}

// scanString reads the string starting at b[i] == '"'. It returns the
// index just past the closing quote and whether the string holds escapes.
//
// The closing quote and the backslashes are found with bytes.IndexByte
// (vectorised in the runtime); the stretches between them are checked for
// control bytes eight at a time. Each byte is looked at a bounded number of
// times, so a long string full of escapes stays linear.
func scanString(b []byte, i int) (end int, escaped bool, err error) {
	i++             // opening quote
	q, bs := -1, -1 // next '"' and '\\' at or after i (absolute), -1 = unknown
	for {
		if q < i {
			k := bytes.IndexByte(b[i:], '"')
			if k < 0 {
				return 0, false, synErr(len(b), "unterminated string")
			}
			q = i + k
		}
		if bs < i {
			k := bytes.IndexByte(b[i:q], '\\')
			if k < 0 {
				bs = q // none before the quote; searched again if the quote is consumed
			} else {
				bs = i + k
			}
		}
		if bs >= q {
			if c := controlAt(b[i:q]); c >= 0 {
				return 0, false, synErr(i+c, "control character in string")
			}
			return q + 1, escaped, nil
		}
		if c := controlAt(b[i:bs]); c >= 0 {
			return 0, false, synErr(i+c, "control character in string")
		}
		escaped = true
		j := bs
		if j+1 >= len(b) {
			return 0, false, synErr(j, "unterminated string")
		}
		switch b[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i = j + 2
		case 'u':
			if j+6 > len(b) {
				return 0, false, synErr(j, "short \\u escape")
			}
			for _, h := range b[j+2 : j+6] {
				if !isHex(h) {
					return 0, false, synErr(j, "bad \\u escape")
				}
			}
			i = j + 6
		default:
			return 0, false, synErr(j, "bad escape")
		}
	}
}

// controlAt returns the index of the first byte below 0x20 in b, or -1.
func controlAt(b []byte) int {
	const lo = 0x0101010101010101
	const hi = 0x8080808080808080
	k := 0
	for ; k+8 <= len(b); k += 8 {
		w := binary.LittleEndian.Uint64(b[k:])
		if (w-lo*0x20)&^w&hi != 0 {
			break
		}
	}
	for ; k < len(b); k++ {
		if b[k] < 0x20 {
			return k
		}
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func scanNumber(b []byte, i int) (int, error) {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return 0, synErr(start, "bad number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0, synErr(start, "bad number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0, synErr(start, "bad number")
		}
	}
	return i, nil
}

func scanLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, synErr(i, "unexpected character")
	}
	return i + len(lit), nil
}

// skipValue validates the JSON value starting at b[i] (white space already
// skipped) and returns the index just past it.
func skipValue(b []byte, i int) (int, error) {
	// stack holds the open containers: '{' or '['. A fixed array covers
	// everything real sessions nest; deeper lines spill to the heap.
	var small [64]byte
	stack := small[:0]
	for {
		// Expect a value at i.
		if i >= len(b) {
			return 0, synErr(i, "unexpected end")
		}
		var err error
		switch c := b[i]; {
		case c == '"':
			i, _, err = scanString(b, i)
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return 0, errDepth
			}
			stack = append(stack, c)
			i = skipWS(b, i+1)
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if i < len(b) && b[i] == closer {
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				if i, err = objectKey(b, i); err != nil {
					return 0, err
				}
			}
			continue
		case c == '-' || c >= '0' && c <= '9':
			i, err = scanNumber(b, i)
		case c == 't':
			i, err = scanLiteral(b, i, "true")
		case c == 'f':
			i, err = scanLiteral(b, i, "false")
		case c == 'n':
			i, err = scanLiteral(b, i, "null")
		default:
			return 0, synErr(i, "unexpected character")
		}
		if err != nil {
			return 0, err
		}
		// After a value: close containers or move to the next element.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return 0, synErr(i, "unexpected end")
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = skipWS(b, i+1)
				if top == '{' {
					if i, err = objectKey(b, i); err != nil {
						return 0, err
					}
				}
				break
			}
			if top == '{' && b[i] == '}' || top == '[' && b[i] == ']' {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return 0, synErr(i, "expected , or a closing bracket")
		}
	}
}

// skipValid returns the index just past the value at b[i] (white space
// skipped) of JSON already validated, without validating it again: strings
// are passed over by their closing quote and containers by their depth.
// On invalid input it returns some index in (i, len(b)] and never panics.
func skipValid(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipValidString(b, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth <= 0 {
				return i + 1
			}
		case ' ', '\t', '\n', '\r', ',', ':':
		default:
			if depth == 0 { // a number or a literal
				for i < len(b) && !isWS(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
					i++
				}
				return i
			}
		}
		i++
	}
	return len(b)
}

// skipValidString returns the index just past the string at b[i] == '"'.
// A quote ends it unless an odd run of backslashes comes before it.
func skipValidString(b []byte, i int) int {
	for i++; ; {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return len(b)
		}
		q := i + k
		n := 0
		for p := q - 1; p >= i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// objectKey reads `"key" :` at b[i] and returns the index of the value,
// white space skipped.
func objectKey(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, synErr(i, "expected a member name")
	}
	i, _, err := scanString(b, i)
	if err != nil {
		return 0, err
	}
	i = skipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return 0, synErr(i, "expected :")
	}
	return skipWS(b, i+1), nil
}

// validLine reports whether line is one JSON value and nothing else but
// white space (what JSON.parse accepts).
func validLine(line []byte) error {
	i := skipWS(line, 0)
	end, err := skipValue(line, i)
	if err != nil {
		return err
	}
	if skipWS(line, end) != len(line) {
		return errTrailing
	}
	return nil
}

// member is one member of a JSON object: the raw key (inside the quotes,
// escapes not resolved) and the raw value.
type member struct {
	key     []byte
	escaped bool // the key holds escapes; resolve with keyString
	val     []byte
	off     int // index of val in the object's bytes
}

// keyIs reports whether the member's name is name, resolving escapes.
func (m *member) keyIs(name string) bool {
	if !m.escaped {
		return string(m.key) == name
	}
	return m.keyString() == name
}

// keyString returns the member's name as a decoder sees it: escapes
// resolved and invalid UTF-8 turned into U+FFFD.
func (m *member) keyString() string {
	if !m.escaped && utf8.Valid(m.key) {
		return string(m.key)
	}
	var s string
	q := make([]byte, 0, len(m.key)+2)
	q = append(append(append(q, '"'), m.key...), '"')
	if json.Unmarshal(q, &s) != nil {
		return string(m.key)
	}
	return s
}

// objIter walks the members of one JSON object, validating as it goes.
// It allocates nothing, which matters on the path that opens a session.
//
//	it := newObjIter(b)
//	for m, ok := it.next(); ok; m, ok = it.next() { ... }
//	if err := it.finish(); err != nil { ... }
type objIter struct {
	b     []byte
	i     int
	err   error
	state uint8 // 0 before '{', 1 at a member or '}', 2 after a member, 3 done
}

func newObjIter(b []byte) objIter { return objIter{b: b} }

// next returns the next member, or ok=false at the end or on an error.
func (it *objIter) next() (m member, ok bool) {
	b := it.b
	i := it.i
	switch it.state {
	case 0:
		i = skipWS(b, 0)
		if i >= len(b) || b[i] != '{' {
			it.err = synErr(i, "expected {")
			if i < len(b) {
				if _, err := skipValue(b, i); err == nil {
					it.err = errNotObject
				}
			}
			it.state = 3
			return m, false
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			it.i, it.state = i+1, 3
			it.checkTrailing()
			return m, false
		}
	case 2:
		i = skipWS(b, i)
		if i >= len(b) {
			return it.fail(i, "unexpected end")
		}
		if b[i] == '}' {
			it.i, it.state = i+1, 3
			it.checkTrailing()
			return m, false
		}
		if b[i] != ',' {
			return it.fail(i, "expected , or }")
		}
		i = skipWS(b, i+1)
	case 3:
		return m, false
	}
	if i >= len(b) || b[i] != '"' {
		return it.fail(i, "expected a member name")
	}
	kEnd, esc, err := scanString(b, i)
	if err != nil {
		it.err, it.state = err, 3
		return m, false
	}
	m.key, m.escaped = b[i+1:kEnd-1], esc
	i = skipWS(b, kEnd)
	if i >= len(b) || b[i] != ':' {
		return it.fail(i, "expected :")
	}
	i = skipWS(b, i+1)
	vEnd, err := skipValue(b, i)
	if err != nil {
		it.err, it.state = err, 3
		return m, false
	}
	m.val, m.off = b[i:vEnd:vEnd], i
	it.i, it.state = vEnd, 2
	return m, true
}

func (it *objIter) fail(i int, msg string) (member, bool) {
	it.err, it.state = synErr(i, msg), 3
	return member{}, false
}

func (it *objIter) checkTrailing() {
	if skipWS(it.b, it.i) != len(it.b) {
		it.err = errTrailing
	}
}

// finish validates whatever next was not asked for and returns the first
// error found.
func (it *objIter) finish() error {
	for {
		if _, ok := it.next(); !ok {
			return it.err
		}
	}
}

// eachMember validates b as exactly one JSON object (surrounding white space
// allowed) and calls fn for each member in order. fn may stop the calls by
// returning false; the rest of the object is still validated.
func eachMember(b []byte, fn func(m *member) bool) error {
	it := newObjIter(b)
	for m, ok := it.next(); ok; m, ok = it.next() {
		if !fn(&m) {
			break
		}
	}
	return it.finish()
}

// stringValue returns the Go string of a raw JSON string value (already
// validated), or ok=false when raw is not a string.
func stringValue(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if !needsUnquote(inner) || bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// needsUnquote reports whether a validated string body holds escapes or
// bytes that are not plain ASCII (invalid UTF-8 must become U+FFFD, as in
// JSON.parse after Node's decoding).
func needsUnquote(inner []byte) bool {
	for len(inner) >= 8 {
		w := binary.LittleEndian.Uint64(inner)
		if w&0x8080808080808080 != 0 || hasSpecial(w) {
			return true
		}
		inner = inner[8:]
	}
	for _, c := range inner {
		if c == '\\' || c >= 0x80 {
			return true
		}
	}
	return false
}

// isNull reports whether a raw value is the literal null.
func isNull(raw []byte) bool { return string(raw) == "null" }

// rawStringEquals reports whether the raw JSON value is the string s,
// without allocating on the common path of a plain ASCII string.
func rawStringEquals(raw []byte, s string) bool {
	if len(raw) >= 2 && raw[0] == '"' && !needsUnquote(raw[1:len(raw)-1]) {
		return string(raw[1:len(raw)-1]) == s
	}
	v, ok := stringValue(raw)
	return ok && v == s
}
