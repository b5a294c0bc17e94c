package pisession

import "fmt"

// pi's rules for one line of a session file, and the warnings they give,
// shared by Open (which keeps the entries) and listing (which only counts
// them), so that the two always agree about a file.

// lineKind is what a line is to the reader.
type lineKind uint8

const (
	lineSkipped lineKind = iota // blank, too long, malformed, a second header, no id
	lineHeader                  // the session header (now in *hdr)
	lineEntry                   // an entry
)

// warner collects warnings.
type warner interface{ warn(msg string) }

// classifyLine applies pi's rules to a complete line, numbered line: until
// *hdr is set, the first JSON line must be a session header (else the
// error, ErrNotSession); after it every other JSON object is an entry,
// unless it has no id (from format version 2 on) or is a second header.
// For an entry it returns the id's text (nil when a version 1 entry has
// none). What is skipped is reported to w.
func classifyLine(sc *scanned, line int32, maxLine int, hdr *Header, w warner) (lineKind, []byte, error) {
	l := sc.l
	if l.tooLong {
		w.warn(fmt.Sprintf("line %d is %d bytes, over the %d-byte limit; it is skipped (and kept in the file)", line, l.n, maxLine))
		return lineSkipped, nil, nil
	}
	if isBlank(l.b) {
		return lineSkipped, nil, nil
	}
	sc.scan()
	f := &sc.f
	if sc.err != nil {
		w.warn(fmt.Sprintf("line %d is not valid JSON (%v); it is skipped", line, sc.err))
		return lineSkipped, nil, nil
	}
	if sc.badUTF8 {
		w.warn(fmt.Sprintf("line %d holds bytes that are not UTF-8; they read as U+FFFD", line))
	}
	if hdr.Raw == nil {
		id, idOK := stringValue(f.id)
		if f.typ != TypeSession || !idOK {
			return lineSkipped, nil, fmt.Errorf("line %d is not a session header (it has type %q): %w", line, f.typ, ErrNotSession)
		}
		*hdr = Header{Version: 1, ID: id, Raw: l.b}
		if f.hasVer {
			hdr.Version = f.version
		}
		if v := findMember(l.b, "timestamp"); v != nil {
			hdr.Timestamp, _ = stringValue(v)
		}
		if v := findMember(l.b, "cwd"); v != nil {
			hdr.Cwd, _ = stringValue(v)
		}
		if v := findMember(l.b, "parentSession"); v != nil {
			hdr.ParentSession, _ = stringValue(v)
		}
		return lineHeader, nil, nil
	}
	if f.typ == TypeSession {
		w.warn(fmt.Sprintf("line %d is a second session header; it is skipped", line))
		return lineSkipped, nil, nil
	}
	if b, ok := plainString(f.id); ok {
		return lineEntry, b, nil
	}
	if id, ok := stringValue(f.id); ok {
		return lineEntry, []byte(id), nil
	}
	if hdr.Version >= 2 {
		w.warn(fmt.Sprintf("line %d (type %q) has no id; it is skipped", line, f.typ))
		return lineSkipped, nil, nil
	}
	return lineEntry, nil, nil
}

// parentText returns the text of an entry's parentId; "" (a root) when it
// is null, missing or not a string, as in pi.
func parentText(f *entryFields) []byte {
	if b, ok := plainString(f.parentID); ok {
		return b
	}
	if f.parentID != nil && !isNull(f.parentID) {
		p, _ := stringValue(f.parentID)
		return []byte(p)
	}
	return nil
}

// noHeaderError is why a file without a header line is not a session.
func noHeaderError(size int64) error {
	if size == 0 {
		return fmt.Errorf("the file is empty: %w", ErrNotSession)
	}
	return fmt.Errorf("no line is a session header: %w", ErrNotSession)
}

func reusedIDText(line int32, id string, prevLine int32) string {
	return fmt.Sprintf("line %d reuses the id %s of line %d; the later entry wins, as in pi", line, id, prevLine)
}

func tornText(line int32, n int) string {
	return fmt.Sprintf("line %d is incomplete (%d bytes without an end, perhaps a write cut short); it is skipped", line, n)
}

func olderVersionText(v int) string {
	return fmt.Sprintf("the file is format version %d; it reads as version %d and is rewritten as version %d before the first change, as pi does when it opens it", v, Version, Version)
}

func newerVersionText(v int) string {
	return fmt.Sprintf("the file is format version %d, newer than %d; it is shown as far as it is understood and not written to", v, Version)
}

func cycleText(id string, line int32) string {
	return fmt.Sprintf("entry %s (line %d) is its own ancestor", id, line)
}

// maxDangling bounds the warnings about missing parents.
const maxDangling = 5

func danglingText(id string, line int32, parentID string) string {
	return fmt.Sprintf("entry %s (line %d) names a parent %s that is not in the file; it starts its own branch, as in pi", id, line, parentID)
}
