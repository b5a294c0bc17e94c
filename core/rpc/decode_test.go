package rpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeCommandInvalidUTF8ID(t *testing.T) {
	c, err := decodeCommand([]byte("{\"id\":\"a\xffb\",\"type\":\"get_state\"}"))
	if err != nil || string(c.ID) != "\"a\ufffdb\"" || c.Type != "get_state" {
		t.Errorf("decodeCommand = %s, %q, %v; want the id re-encoded", c.ID, c.Type, err)
	}
	out, err := json.Marshal(response{Type: "response", ID: c.ID})
	if err != nil || !utf8.Valid(out) {
		t.Errorf("response %q, %v: want valid UTF-8 JSON", out, err)
	}
}

// Whatever a client sends, decoding neither panics nor yields an id the
// response could not carry: a decoded id is valid JSON (in valid UTF-8),
// and it is the client's own bytes whenever those were valid UTF-8.
func FuzzDecodeCommand(f *testing.F) {
	for _, s := range []string{
		`{"id":"s","type":"get_state"}`, `{"id":1,"type":"prompt","message":"hi"}`, `{"id":null}`,
		`{"id":{"a":[1,2]},"type":5}`, `{"ID":"x","Id":"y"}`, `{"id":"a\u0000"}`, `not json`, `[1]`, `null`,
		"{\"id\":\"\xff\"}", `{"type":"branch","entryId":null}`, `{"id":1e999}`, ` {"id":-0.0} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := decodeCommand(line)
		if c.ID == nil {
			return
		}
		if !json.Valid(c.ID) || !utf8.Valid(c.ID) {
			t.Fatalf("decodeCommand(%q) id %q is not valid JSON in UTF-8 (err %v)", line, c.ID, err)
		}
		if _, err := json.Marshal(response{Type: "response", ID: c.ID}); err != nil {
			t.Fatalf("decodeCommand(%q): the response cannot carry id %q: %v", line, c.ID, err)
		}
		var given struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(line, &given)
		if utf8.Valid(given.ID) && !bytes.Equal(c.ID, given.ID) {
			t.Fatalf("decodeCommand(%q) id %q, want the client's %q", line, c.ID, given.ID)
		}
	})
}

// BenchmarkDecodeCommand decodes a prompt line with a number id.
func BenchmarkDecodeCommand(b *testing.B) {
	line := []byte(`{"id":12,"type":"prompt","message":"` + strings.Repeat("word ", 200) + `"}`)
	for b.Loop() {
		if _, err := decodeCommand(line); err != nil {
			b.Fatal(err)
		}
	}
}
