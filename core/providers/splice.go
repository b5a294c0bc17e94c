package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

// A file pi and the user share (models.json, mcp.json) is changed by
// splicing: the new text goes in at one place and every other byte, the
// comments, the order and the layout the user chose, stays as it was.
// The structure is found in a copy with the comments blanked
// (settings.StripJSONComments keeps every position), so an offset found
// there is the same offset in the file.

// span is a JSON value's bytes: [start, end).
type span struct{ start, end int }

// member is one member of an object: its key and its value.
type member struct {
	key   string
	keyAt int // where the key's opening quote is
	value span
}

// scanner walks comment-free JSON text.
type scanner struct{ b []byte }

var errSyntax = errors.New("not valid JSON")

func (s scanner) ws(i int) int {
	for i < len(s.b) && (s.b[i] == ' ' || s.b[i] == '\t' || s.b[i] == '\n' || s.b[i] == '\r') {
		i++
	}
	return i
}

// value returns the end of the value starting at i (after white space).
func (s scanner) value(i int) (int, error) {
	i = s.ws(i)
	if i >= len(s.b) {
		return 0, errSyntax
	}
	switch c := s.b[i]; {
	case c == '"':
		return s.str(i)
	case c == '{' || c == '[':
		depth := 0
		for j := i; j < len(s.b); j++ {
			switch s.b[j] {
			case '"':
				end, err := s.str(j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errSyntax
	default:
		j := i
		for j < len(s.b) && !strings.ContainsRune(" \t\r\n,}]", rune(s.b[j])) {
			j++
		}
		if j == i {
			return 0, errSyntax
		}
		return j, nil
	}
}

// str returns the end of the string whose quote is at i.
func (s scanner) str(i int) (int, error) {
	for j := i + 1; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errSyntax
}

// members lists the members of the object whose '{' is at open, and
// returns where its '}' is.
func (s scanner) members(open int) ([]member, int, error) {
	if open >= len(s.b) || s.b[open] != '{' {
		return nil, 0, errSyntax
	}
	var out []member
	i := s.ws(open + 1)
	if i < len(s.b) && s.b[i] == '}' {
		return nil, i, nil
	}
	for {
		i = s.ws(i)
		if i >= len(s.b) || s.b[i] != '"' {
			return nil, 0, errSyntax
		}
		kend, err := s.str(i)
		if err != nil {
			return nil, 0, err
		}
		var key string
		if err := jsonUnquote(s.b[i:kend], &key); err != nil {
			return nil, 0, err
		}
		c := s.ws(kend)
		if c >= len(s.b) || s.b[c] != ':' {
			return nil, 0, errSyntax
		}
		vstart := s.ws(c + 1)
		vend, err := s.value(vstart)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, member{key: key, keyAt: i, value: span{vstart, vend}})
		i = s.ws(vend)
		if i < len(s.b) && s.b[i] == ',' {
			i++
			// pi reads JSON5-like files: a trailing comma may close the object.
			if j := s.ws(i); j < len(s.b) && s.b[j] == '}' {
				return out, j, nil
			}
			continue
		}
		if i < len(s.b) && s.b[i] == '}' {
			return out, i, nil
		}
		return nil, 0, errSyntax
	}
}

// doc is a shared JSON file: its bytes and the blanked copy.
type doc struct {
	path  string
	raw   []byte
	plain scanner
}

func newDoc(path string, raw []byte) (*doc, error) {
	d := &doc{path: path, raw: raw, plain: scanner{pisettings.StripJSONComments(raw)}}
	i := d.plain.ws(0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, fmt.Errorf("%s must hold a JSON object; it was left as it is", path)
	}
	if _, _, err := d.plain.members(i); err != nil || !json.Valid(d.plain.b) {
		return nil, fmt.Errorf("%s is not valid JSON; it was left as it is: fix it by hand first", path)
	}
	return d, nil
}

// root is where the top-level '{' is.
func (d *doc) root() int { return d.plain.ws(0) }

// find returns the member key of the object at open.
func (d *doc) find(open int, key string) (member, int, bool) {
	ms, closeAt, _ := d.plain.members(open)
	for _, m := range ms {
		if m.key == key {
			return m, closeAt, true
		}
	}
	return member{}, closeAt, false
}

// indentOf is the white space that starts the line holding offset i.
func (d *doc) indentOf(i int) string {
	start := bytes.LastIndexByte(d.raw[:i], '\n') + 1
	j := start
	for j < i && (d.raw[j] == ' ' || d.raw[j] == '\t') {
		j++
	}
	return string(d.raw[start:j])
}

// insertMember returns the file with `"key": value` added as the last
// member of the object at open; value is laid out for indent+step and
// may span lines.
func (d *doc) insertMember(open int, key, value string) []byte {
	ms, closeAt, _ := d.plain.members(open)
	objIndent := d.indentOf(open)
	step := "  "
	if len(ms) > 0 {
		if in := d.indentOf(ms[0].keyAt); strings.HasPrefix(in, objIndent) && len(in) > len(objIndent) && bytes.LastIndexByte(d.raw[:ms[0].keyAt], '\n') > open {
			step = in[len(objIndent):]
		}
	}
	indent := objIndent + step
	k, _ := jsonQuote(key)
	text := k + ": " + strings.ReplaceAll(value, "\n", "\n"+indent)
	var out bytes.Buffer
	if len(ms) == 0 {
		// {} or { } becomes the object with one member on its own line.
		out.Write(d.raw[:open+1])
		out.WriteString("\n" + indent + text + "\n" + objIndent)
		out.Write(d.raw[closeAt:])
		return out.Bytes()
	}
	last := ms[len(ms)-1].value.end
	// After the last value (and a trailing comma, if the file has one).
	at, comma := last, ","
	if j := d.plain.ws(last); j < len(d.raw) && d.raw[j] == ',' {
		at, comma = j+1, ""
	}
	out.Write(d.raw[:at])
	out.WriteString(comma + "\n" + indent + text)
	out.Write(d.raw[at:])
	return out.Bytes()
}

// replaceValue returns the file with the value at sp replaced.
func (d *doc) replaceValue(sp span, value string) []byte {
	var out bytes.Buffer
	out.Write(d.raw[:sp.start])
	out.WriteString(value)
	out.Write(d.raw[sp.end:])
	return out.Bytes()
}
