package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// decodeCommand reads one line of rpc input. A line that is JSON but not
// a command (a field of the wrong type) is refused with the command's id,
// so the client can tell which command failed; a line that is not JSON,
// or not an object, is refused without one.
func decodeCommand(line []byte) (command, error) {
	var c command
	err := json.Unmarshal(line, &c)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return command{}, fmt.Errorf("invalid JSON: %v", err)
	}
	if t := bytes.TrimLeft(line, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return command{}, fmt.Errorf(`invalid command: a command is a JSON object ({"type": …}), not %s`, jsonKind(t))
	}
	c.ID = echoID(c.ID)
	c.raw = line
	if err == nil {
		return c, nil
	}
	// Unmarshal went on past the field it could not take, so the id is
	// there even when another field is wrong.
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		return command{ID: c.ID}, fmt.Errorf("invalid command: %q must be %s, not %s", typ.Field, wantKind(typ.Type), article(typ.Value))
	}
	return command{ID: c.ID}, fmt.Errorf("invalid command: %v", err)
}

// echoID is the id to answer with: the client's JSON as it came, so
// numbers, strings, null and objects all come back the same. Only text
// that is not valid UTF-8, which JSON output may not carry, is re-encoded
// (with U+FFFD for the bad bytes).
func echoID(id json.RawMessage) json.RawMessage {
	if len(id) == 0 || utf8.Valid(id) {
		return id
	}
	d := json.NewDecoder(bytes.NewReader(id))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return out
}

// jsonKind names the kind of the JSON value that starts t.
func jsonKind(t []byte) string {
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}

// wantKind says what a field of Go type t takes, in JSON's words.
func wantKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	}
	return t.Kind().String()
}

// article puts "a" or "an" before a JSON kind as encoding/json names it
// ("number", "object", "array", "bool").
func article(kind string) string {
	switch kind {
	case "bool":
		return "true or false"
	case "object", "array":
		return "an " + kind
	}
	return "a " + kind
}
