package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/internal/safetext"
)

// Everything the command line prints goes through this file. Names come
// from disk, and a hostile clone picks its folder's name, so the default
// project name too: "evil\u202egnp.exe", a zero-width space, an escape
// sequence, a line break. What pi-tui prints must neither drive the
// terminal nor reorder, hide or forge a line, so every value put into a
// line (a name, path, group, branch, title, first message, or an error
// that quotes one) is written by shown, and JSON has the same characters
// escaped, which JSON reads back as they were.

// shown is the one way a value from outside pi-tui is written into a
// line: safetext.Name, which shows control, bidirectional and invisible
// characters as escapes (\x1b, \u202e, \u200b) and a line break as ⏎.
func shown(s string) string { return safetext.Name(s) }

// say writes format, pi-tui's own words, to w with every string, error
// and Stringer among args written by shown; numbers are as they are. A
// %q verb quotes the value itself (Go quoting escapes the same
// characters). Every line a command prints is written by say, or by
// writeText for text already made safe.
func say(w io.Writer, format string, args ...any) error {
	args = slices.Clone(args)
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = shownArg(v)
		case error:
			args[i] = shownArg(v.Error())
		case fmt.Stringer:
			args[i] = shownArg(v.String())
		}
	}
	_, err := fmt.Fprintf(w, format, args...)
	return err
}

// shownArg formats as shown(s), keeping the verb's width and flags.
type shownArg string

func (s shownArg) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, fmt.FormatString(f, verb), string(s))
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), shown(string(s)))
}

// writeText writes text that spans lines and is already safe to print:
// pi-tui's own (help, a completion script) or content made visible with
// safetext.Visible (instruction text, memory, a model's answer).
func writeText(w io.Writer, text string) error {
	_, err := io.WriteString(w, text)
	return err
}

// writeJSON writes v as JSON, indented, with no character a terminal
// would act on or that draws nothing left raw (see jsonText).
func writeJSON(w io.Writer, v any, escapeHTML bool) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return writeJSONText(w, b.Bytes())
}

// writeJSONText writes JSON text made elsewhere (memory's entries-v1
// document) as writeJSON writes its own.
func writeJSONText(w io.Writer, data []byte) error {
	_, err := w.Write(escapeJSON(data))
	return err
}

// jsonText is a writer for JSON texts, each Write whole runes (as
// encoders write them): the characters safetext.Hidden names are written
// as \u escapes. They can stand only inside strings in JSON, where an
// escape is the same character, so a reader gets the same values and a
// terminal gets nothing to act on.
type jsonText struct{ w io.Writer }

func (j jsonText) Write(p []byte) (int, error) {
	if _, err := j.w.Write(escapeJSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapeJSON returns JSON text with every non-ASCII Hidden character and
// DEL escaped; the encoder has escaped the C0 controls already, and the
// line feeds left are its own.
func escapeJSON(p []byte) []byte {
	i := 0
	for i < len(p) {
		r, n := utf8.DecodeRune(p[i:])
		if r >= 0x7f && safetext.Hidden(r) && !(r == utf8.RuneError && n == 1) {
			break
		}
		i += n
	}
	if i == len(p) {
		return p
	}
	out := append(make([]byte, 0, len(p)+32), p[:i]...)
	for i < len(p) {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r >= 0x7f && safetext.Hidden(r) && !(r == utf8.RuneError && n == 1):
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		default:
			out = append(out, p[i:i+n]...)
		}
		i += n
	}
	return out
}
