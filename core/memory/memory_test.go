package memory

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func seqIDs() func() string {
	n := 0
	return func() string { n++; return "gen" + string(rune('0'+n%10)) + strings.Repeat("x", n/10) }
}

func TestNormalize(t *testing.T) {
	in := []Entry{
		{ID: "a", Title: "  Style  ", Content: "\n  use gofmt \n"},
		{ID: "", Title: "", Content: "no id"},
		{ID: "a", Content: "duplicate id"},
		{ID: "gone", Title: "empty", Content: "   \n\t"},
		{ID: "b", Title: "two\nlines", Content: "crlf\r\nkept"},
	}
	got := Normalize(in, seqIDs())
	want := []Entry{
		{ID: "a", Title: "Style", Content: "use gofmt"},
		{ID: "gen1", Content: "no id"},
		{ID: "gen2", Content: "duplicate id"},
		{ID: "b", Title: "two lines", Content: "crlf\nkept"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Normalize:\n got %#v\nwant %#v", got, want)
	}
	if again := Normalize(got, seqIDs()); !reflect.DeepEqual(again, got) {
		t.Errorf("normalising twice changed the entries: %#v", again)
	}
}

func TestProjection(t *testing.T) {
	got := Project([]Entry{{Title: "Style", Content: "use gofmt"}, {Content: "plain note"}, {Title: "Last", Content: "x"}})
	want := "## Style\n\nuse gofmt\n\nplain note\n\n## Last\n\nx"
	if got != want {
		t.Errorf("Project = %q, want %q", got, want)
	}
	if Project(nil) != "" {
		t.Error("empty memory projects to non-empty text")
	}
}

func TestDecodeLegacyAndEntries(t *testing.T) {
	v, err := Decode([]byte(`{"content":"  old note \n"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Entries) != 1 || v.Entries[0].Title != "" || v.Content != "old note" {
		t.Errorf("legacy read as %+v", v)
	}
	v, err = Decode([]byte(`{"format":"entries-v1","entries":[{"id":"x","title":"T","content":"c"}],"content":"stale","updatedAt":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.Content != "## T\n\nc" || v.UpdatedAt != 5 {
		t.Errorf("content is derived from entries, got %+v", v)
	}
	for _, bad := range []string{`{"format":"entries-v9","entries":[]}`, `{"entries":[{"title":5}]}`, `{"content":"a"} trailing`, `{`, `[]`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%s) succeeded", bad)
		}
	}
}

func TestParseInput(t *testing.T) {
	cases := []struct {
		in      string
		want    []Entry
		wantErr string
	}{
		{in: "just text\nsecond line\n", want: []Entry{{Content: "just text\nsecond line"}}},
		{in: "\ufeffBOM text", want: []Entry{{Content: "BOM text"}}},
		{in: `[{"title":"A","content":"a"},{"content":""}]`, want: []Entry{{Title: "A", Content: "a"}}},
		{in: ` {"format":"entries-v1","entries":[{"id":"k","content":"v"}]}`, want: []Entry{{ID: "k", Content: "v"}}},
		{in: `{"content":"legacy"}`, want: []Entry{{Content: "legacy"}}},
		{in: "[]", want: nil},
		{in: "", wantErr: "input is empty"},
		{in: "\ufeff  \n", wantErr: "input is empty"},
		{in: `{"foo":1}`, wantErr: "unknown field"},
		{in: `{"format":"entries-v1","entries":null}`, wantErr: "must be a list"},
		{in: `{"format":"entries-v1"}`, wantErr: "expected"},
		{in: `[null]`, wantErr: "entry 1 is null"},
		{in: `[{"title":"a","contents":"typo"}]`, wantErr: `unknown field "contents"`},
		{in: `[{"title":"a"}]`, wantErr: `entry 1 has no "content"`},
		{in: `[{"title":"a"`, wantErr: "ends too early, at line 1"},
		{in: "[{\"content\": \"a\",}]", wantErr: "line 1"},
		{in: "{\n  \"entries\": [\n    {\"content\": 3}\n  ]\n}", wantErr: "must be a string, not number (line 3"},
		{in: `[{"content":"a"}] [`, wantErr: "after the first value at line 1"},
	}
	for _, c := range cases {
		got, err := ParseInput([]byte(c.in))
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseInput(%q) error = %v, want it to mention %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseInput(%q): %v", c.in, err)
			continue
		}
		for i := range got { // generated ids are random; compare the rest
			if c.want[i].ID == "" {
				if got[i].ID == "" {
					t.Errorf("entry without id")
				}
				got[i].ID = ""
			}
		}
		if !reflect.DeepEqual(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("ParseInput(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

func TestTooLargeErrorSaysBothSizes(t *testing.T) {
	err := error(&TooLargeError{Bytes: 40000})
	var tl *TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "40,000") || !strings.Contains(err.Error(), "32,768") {
		t.Errorf("error = %v", err)
	}
}

// FuzzDecode: the stored-value decoder never panics, and what it returns is
// normalised and survives an encode/decode round trip unchanged.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"format":"entries-v1","entries":[{"id":"a","title":"t","content":"c"}],"content":"x","updatedAt":1}`,
		`{"content":"legacy"}`, `{"entries":null}`, `[]`, `{"format":1}`, "{\"content\":\"\xff\"}",
		`{"entries":[{"id":"a","content":"1"},{"id":"a","content":"2"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			return
		}
		if !reflect.DeepEqual(Normalize(v.Entries, seqIDs()), v.Entries) {
			t.Fatalf("decoded entries are not normalised: %#v", v.Entries)
		}
		enc, err := Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", enc, err)
		}
		if !reflect.DeepEqual(back, v) {
			t.Fatalf("round trip changed the value:\n%#v\n%#v", v, back)
		}
	})
}

// FuzzNormalize: normalising is idempotent, never panics, keeps valid
// UTF-8, and decode(encode(x)) == x for normalised x.
func FuzzNormalize(f *testing.F) {
	f.Add("id", "title", "content", "id", "", "  ")
	f.Add("", "\xff\xfe", "a\r\nb", "", "t\n\nt", "\u2028x\u00a0")
	f.Fuzz(func(t *testing.T, id1, t1, c1, id2, t2, c2 string) {
		once := Normalize([]Entry{{id1, t1, c1}, {id2, t2, c2}}, seqIDs())
		twice := Normalize(once, seqIDs())
		if !reflect.DeepEqual(once, twice) {
			t.Fatalf("not idempotent:\n%#v\n%#v", once, twice)
		}
		for _, e := range once {
			if e.ID == "" || e.Content == "" || !utf8.ValidString(e.ID+e.Title+e.Content) || strings.ContainsAny(e.Title, "\n\r") {
				t.Fatalf("bad normalised entry %#v", e)
			}
		}
		v := Value{Format: Format, Entries: once, UpdatedAt: 7}
		v.Content = Project(once)
		enc, err := Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		if len(once) == 0 {
			once = nil
		}
		if len(back.Entries) == 0 {
			back.Entries = nil
		}
		v.Entries = once
		if !reflect.DeepEqual(back, v) {
			t.Fatalf("decode(encode(x)) != x:\n%#v\n%#v", v, back)
		}
	})
}
