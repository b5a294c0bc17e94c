package memory

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
)

// Members a reader that knows entries-v1 knows. Anything else a stored
// value holds was written by a newer pi-tui (or another tool sharing the
// store): it is kept and written back unchanged, so that an older editor
// saving the memory does not strip what a newer one added.
var (
	valueMembers = map[string]bool{"format": true, "entries": true, "content": true, "updatedAt": true}
	entryMembers = map[string]bool{"id": true, "title": true, "content": true, "by": true}
)

// entryFields is Entry without its methods, for the plain decode.
type entryFields struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Content string `json:"content"`
	By      string `json:"by"`
	extra   map[string]json.RawMessage
}

// UnmarshalJSON reads an entry, keeping members it does not know in Extra.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var f entryFields
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*e = Entry{ID: f.ID, Title: f.Title, Content: f.Content, By: f.By, Extra: unknownMembers(data, entryMembers)}
	return nil
}

// MarshalJSON writes an entry: id, title, content, by (when set), then the
// members kept from a newer writer, in name order.
func (e Entry) MarshalJSON() ([]byte, error) {
	return appendEntry(make([]byte, 0, len(e.Content)+len(e.Title)+len(e.ID)+48), e), nil
}

func appendEntry(b []byte, e Entry) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, e.ID)
	b = append(b, `,"title":`...)
	b = appendString(b, e.Title)
	b = append(b, `,"content":`...)
	b = appendString(b, e.Content)
	if e.By != "" {
		b = append(b, `,"by":`...)
		b = appendString(b, e.By)
	}
	b = appendMembers(b, e.Extra, entryMembers)
	return append(b, '}')
}

// unknownMembers returns the members of the JSON object in data whose
// names known does not hold; nil when there are none.
func unknownMembers(data []byte, known map[string]bool) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	walkObject(data, func(name, value []byte) { keep(&out, name, value, known) })
	return out
}

// keep adds the member to *out unless known names it. A name written with
// escapes means its unescaped self, and invalid UTF-8 in it reads as
// U+FFFD, as encoding/json reads it.
func keep(out *map[string]json.RawMessage, name, value []byte, known map[string]bool) {
	if known[string(name)] {
		return
	}
	key := string(name)
	if bytes.IndexByte(name, '\\') >= 0 || !utf8.Valid(name) {
		quoted := append(append([]byte{'"'}, name...), '"')
		if json.Unmarshal(quoted, &key) != nil || known[key] {
			return
		}
	}
	if *out == nil {
		*out = map[string]json.RawMessage{}
	}
	(*out)[key] = append(json.RawMessage(nil), value...)
}

// walkObject calls fn with each member of the JSON object in data: its
// name as written (without quotes) and its value. data has been decoded
// once already, so it is valid JSON: this walks it byte by byte and
// allocates nothing (runtimes decode 500-entry memories, and the common
// case keeps nothing).
func walkObject(data []byte, fn func(name, value []byte)) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(data, i)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		if i >= len(data) || data[i] != '"' {
			return
		}
		ks := i
		i = skipString(data, i)
		name := data[ks+1 : i-1]
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ':' {
			return
		}
		i = skipSpace(data, i+1)
		vs := i
		i = skipValue(data, i)
		fn(name, data[vs:i])
	}
}

// walkArray calls fn with each element of the JSON array in data.
func walkArray(data []byte, fn func(i int, value []byte)) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return
	}
	i++
	for n := 0; ; n++ {
		i = skipSpace(data, i)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		if i >= len(data) || data[i] == ']' {
			return
		}
		vs := i
		i = skipValue(data, i)
		fn(n, data[vs:i])
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at data[i].
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// skipValue returns the index after the value starting at data[i].
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(data) && !strings.ContainsRune(",}] \t\r\n", rune(data[i])) {
		i++
	}
	return i
}

// appendMembers appends ,"name":value for each member of extra that known
// does not name (a kept member never shadows one this version writes).
func appendMembers(b []byte, extra map[string]json.RawMessage, known map[string]bool) []byte {
	names := make([]string, 0, len(extra))
	for n := range extra {
		if !known[n] && json.Valid(extra[n]) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		b = append(b, ',')
		b = appendString(b, n)
		b = append(b, ':')
		var c bytes.Buffer
		if json.Compact(&c, extra[n]) == nil {
			b = append(b, c.Bytes()...)
		}
	}
	return b
}

// appendString appends s as a JSON string as encoding/json writes it
// with HTML escaping off (stored values keep "<" as "<", as Encode always
// has): quotes, backslashes and control characters escaped, invalid UTF-8
// as U+FFFD, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// keptMembers walks a stored value once: it returns the top-level members
// this version does not know and gives each decoded entry the members of
// its own it does not know.
func keptMembers(data []byte, entries *[]entryFields) map[string]json.RawMessage {
	var top map[string]json.RawMessage
	walkObject(data, func(name, value []byte) {
		if string(name) == "entries" && entries != nil {
			walkArray(value, func(i int, elem []byte) {
				if i < len(*entries) {
					(*entries)[i].extra = unknownMembers(elem, entryMembers)
				}
			})
			return
		}
		keep(&top, name, value, valueMembers)
	})
	return top
}
