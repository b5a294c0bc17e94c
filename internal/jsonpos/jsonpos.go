// Package jsonpos says where encoding/json found a problem in a text, as a
// person looks for it in an editor: a 1-based line and a column counted in
// characters. encoding/json gives only a byte offset, and one that differs
// by kind of error; pi-tui's JSON files (settings.json, models.json,
// auth.json, memory input) are all located by this one rule.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"
)

// Of returns where err, from decoding data, lies: the character that
// broke the syntax, the last character of a value of the wrong type, or,
// for a text that ends too early (eof), just after its last character
// that is not white space, so that `{"bad json` followed by a newline is
// at line 1, column 11, never on a line after the text. ok is false for
// an error that has no place in the text.
func Of(data []byte, err error) (line, col int, eof, ok bool) {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// Offset counts the bytes read, the offending one included. The
		// input ran out inside a value, or the offending byte is the
		// white space that ends the file (a string never closed): the
		// text ends too early.
		at := int(syn.Offset) - 1
		if syn.Error() == errEnd || at >= len(bytes.TrimRight(data, " \t\r\n")) {
			line, col = End(data)
			return line, col, true, true
		}
		line, col = At(data, at)
		return line, col, false, true
	case errors.As(err, &typ):
		line, col = At(data, int(typ.Offset)-1)
		return line, col, false, true
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		line, col = End(data)
		return line, col, true, true
	}
	return 0, 0, false, false
}

// errEnd is how encoding/json's Unmarshal says the input ran out.
const errEnd = "unexpected end of JSON input"

// At returns the line and column of the byte at offset off (clamped to
// the text).
func At(data []byte, off int) (line, col int) {
	off = max(min(off, len(data)), 0)
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return line, utf8.RuneCount(before) + 1
}

// End returns the place just after the text's last character that is not
// white space: where a text cut short stops.
func End(data []byte) (line, col int) {
	return At(data, len(bytes.TrimRight(data, " \t\r\n")))
}
