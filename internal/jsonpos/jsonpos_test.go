package jsonpos

import (
	"bytes"
	"encoding/json"
	"testing"
)

// A text cut short is located at the end of its last line, never on a
// line after it; a wrong character where it is, by Unmarshal and by a
// Decoder alike.
func TestWhereTheProblemIs(t *testing.T) {
	for _, c := range []struct {
		text      string
		line, col int
		eof       bool
	}{
		{"{\"bad json\n", 1, 11, true},
		{"{\"bad json", 1, 11, true},
		{"{\"a\": 1,\n", 1, 9, true},
		{"{\"a\":\n\n  \n", 1, 6, true},
		{"{\n  \"a\": 1,\n  x\n}\n", 3, 3, false},
		{"{\"é\": 1 2}", 1, 9, false},
		{"{\"a\": \"x\n\"}", 1, 9, false},
		{"{\n  \"a\": 1,\n  }\n", 3, 3, false},
		{"{\"a\": 1}}", 1, 9, false},
	} {
		for name, err := range map[string]error{
			"Unmarshal": json.Unmarshal([]byte(c.text), new(any)),
			"Decoder":   json.NewDecoder(bytes.NewReader([]byte(c.text))).Decode(new(any)),
		} {
			if err == nil && name == "Decoder" {
				continue // a Decoder reads one value: what follows is not its error
			}
			line, col, eof, ok := Of([]byte(c.text), err)
			if !ok || line != c.line || col != c.col || eof != c.eof {
				t.Errorf("%s %q (%v): line %d, column %d, eof %v, ok %v; want line %d, column %d, eof %v",
					name, c.text, err, line, col, eof, ok, c.line, c.col, c.eof)
			}
		}
	}
}

// A value of the wrong type is located at its last character.
func TestWrongType(t *testing.T) {
	text := "{\n  \"a\": \"str\"}"
	var v struct{ A int }
	line, col, eof, ok := Of([]byte(text), json.Unmarshal([]byte(text), &v))
	if !ok || eof || line != 2 || col != 12 {
		t.Errorf("line %d, column %d, eof %v, ok %v", line, col, eof, ok)
	}
}
