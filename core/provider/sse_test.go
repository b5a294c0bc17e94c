package provider

import (
	"errors"
	"io"
	"strings"
	"testing"
)

type sseEv struct{ typ, data string }

func parseAll(r io.Reader, max int) ([]sseEv, error) {
	s := newSSEReader(r, max)
	var out []sseEv
	for {
		typ, data, err := s.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, sseEv{string(typ), string(data)})
	}
}

// oneByte reads one byte at a time, to cross every buffer boundary.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

func TestSSEParse(t *testing.T) {
	in := "\ufeff: comment\nevent: a\ndata: one\ndata:two\n\n" +
		"id: 7\nretry: 100\ndata: x\r\n\r\n" +
		"data: cr\rdata:  spaced\r\r" +
		"event: only\n\n" +
		"data\n\n" +
		"unknown: z\ndata: last\n"
	want := []sseEv{{"a", "one\ntwo"}, {"", "x"}, {"", "cr\n spaced"}, {"", ""}, {"", "last"}}
	for _, r := range []io.Reader{strings.NewReader(in), oneByte{strings.NewReader(in)}} {
		got, err := parseAll(r, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("got %q, want %q", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("event %d = %q, want %q", i, got[i], want[i])
			}
		}
	}
}

func TestSSEUnterminatedLineDropped(t *testing.T) {
	got, err := parseAll(strings.NewReader("data: a\n\ndata: {\"cut"), 0)
	if err != nil || len(got) != 1 || got[0].data != "a" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestSSELineTooLong(t *testing.T) {
	in := "data: ok\n\ndata: " + strings.Repeat("x", 5000) + "\n\n"
	got, err := parseAll(strings.NewReader(in), 1000)
	if !errors.Is(err, errLineTooLong) || len(got) != 1 {
		t.Fatalf("got %q, %v; want one event then errLineTooLong", got, err)
	}
	// Within the bound a long line grows the buffer.
	got, err = parseAll(oneByte{strings.NewReader(in)}, 1<<20)
	if err != nil || len(got) != 2 || len(got[1].data) != 5000 {
		t.Fatalf("long line: %d events, %v", len(got), err)
	}
}

func TestSSEReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: a\n\n"), &errReader{boom})
	got, err := parseAll(r, 0)
	if !errors.Is(err, boom) || len(got) != 1 {
		t.Fatalf("got %q, %v", got, err)
	}
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }
