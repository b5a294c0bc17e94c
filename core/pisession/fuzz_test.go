package pisession

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// The line scanner accepts exactly what a JSON parser accepts, and picks
// out the same members.
func FuzzScanLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-12-01T05:26:23.078Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}}`,
		`{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/p"}`,
		`{"\u0074ype":"custom","id":"\u0061","parentId":"b","type":"label"}`,
		`{"a":[1,-2.5e+3,true,false,null,{"b":"\"\\\/\b\f\n\r\t\u00e9"}]}`,
		"{\"a\":\"tab\there\"}", `[1]`, `"s"`, `{"a":1,}`, `{"a" 1}`, `{"a":01}`, `{"a":1.}`, `{"a":"\x"}`,
		"{\"a\":\"\xff\xfe\"}", `  {"a":{}}  `, `{"a":[]}`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := validLine(b)
		if (err == nil) != json.Valid(b) {
			t.Fatalf("validLine = %v, json.Valid = %v for %q", err, json.Valid(b), b)
		}
		// Passing over a value already validated lands where validating
		// it does (and never panics on anything else).
		start := skipWS(b, 0)
		fast := skipValid(b, start)
		if end, verr := skipValue(b, start); err == nil && (verr != nil || fast != end) {
			t.Fatalf("skipValid = %d, skipValue = %d, %v for %q", fast, end, verr, b)
		}
		var m map[string]json.RawMessage
		objErr := json.Unmarshal(b, &m)
		fields, serr := scanEntry(b)
		if (serr == nil) != (objErr == nil && m != nil) {
			t.Fatalf("scanEntry err %v, Unmarshal err %v (map %v) for %q", serr, objErr, m != nil, b)
		}
		if serr != nil {
			return
		}
		first := map[string][]byte{}
		_ = eachMember(b, func(m *member) bool {
			if _, seen := first[m.keyString()]; !seen {
				first[m.keyString()] = m.val
			}
			return true
		})
		for k, v := range first {
			if strings.ContainsRune(k, utf8.RuneError) {
				continue // callers ask for ASCII names; see member.keyIs
			}
			if got := findMember(b, k); !bytes.Equal(got, v) {
				t.Fatalf("findMember(%q) = %q, want the first value %q in %q", k, got, v, b)
			}
		}
		check := func(key string, got []byte) {
			want, ok := m[key]
			if !ok {
				if got != nil {
					t.Fatalf("%s: got %q, not in the object %q", key, got, b)
				}
				return
			}
			if !bytes.Equal(bytes.TrimSpace(want), got) {
				t.Fatalf("%s: got %q, want %q in %q", key, got, want, b)
			}
		}
		check("id", fields.id)
		check("parentId", fields.parentID)
		check("timestamp", fields.ts)
		check("message", fields.msg)
		if raw, ok := m["type"]; ok {
			var typ string
			if json.Unmarshal(raw, &typ) == nil && typ != fields.typ {
				t.Fatalf("type %q, want %q", fields.typ, typ)
			}
		}
		if fields.ts != nil && string(fields.ts) != string(b[fields.tsOff:fields.tsOff+len(fields.ts)]) {
			t.Fatalf("timestamp offset %d wrong", fields.tsOff)
		}
	})
}

// Any file, however broken, opens without panicking or hanging: either it
// is refused with a clear error, or its tree is a tree (a path never
// repeats an entry), its context builds, an append lands, and reopening
// agrees. The input is read as a list of entries with ids and parents from
// a small alphabet, so cycles, dangling parents and duplicates are common.
func FuzzTree(f *testing.F) {
	f.Add([]byte("ab bc cd"), true)
	f.Add([]byte("ab ba"), true)    // a cycle
	f.Add([]byte("a- bz cb"), true) // a dangling parent
	f.Add([]byte("a- a- ba"), true) // a duplicate id
	f.Add([]byte("aa"), true)       // its own parent
	f.Add([]byte("a- b- cb ca xc"), false)
	f.Fuzz(func(t *testing.T, spec []byte, withHeader bool) {
		if len(spec) > 400 {
			return
		}
		var b bytes.Buffer
		if withHeader {
			b.WriteString(`{"type":"session","version":3,"id":"fz","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n")
		}
		types := []string{"message", "compaction", "branch_summary", "custom_message", "custom", "label", "session_info", "weird"}
		for k, w := range bytes.Fields(spec) {
			if len(w) < 2 {
				b.Write(w) // junk
				b.WriteByte('\n')
				continue
			}
			parent := `null`
			if w[1] != '-' {
				parent = fmt.Sprintf("%q", string(w[1:2]))
			}
			typ := types[k%len(types)]
			extra := ""
			switch typ {
			case "message":
				role := []string{"user", "assistant", "toolResult", "bashExecution", "custom", "alien"}[int(w[0])%6]
				extra = `,"message":{"role":"` + role + `","content":[{"type":"text","text":"` + string(w) + `"}],"command":"ls","timestamp":1}`
			case "compaction":
				extra = fmt.Sprintf(`,"summary":"s","firstKeptEntryId":%q,"tokensBefore":1`, string(w[len(w)-1:]))
			case "branch_summary":
				extra = `,"fromId":"x","summary":"b"`
			case "custom_message":
				extra = `,"customType":"c","content":"cm","display":true`
			case "label":
				extra = fmt.Sprintf(`,"targetId":%q,"label":"L"`, string(w[:1]))
			}
			fmt.Fprintf(&b, `{"type":%q,"id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z"%s}`+"\n", typ, string(w[:1]), parent, extra)
			if len(w) > 2 && w[2] == '!' {
				b.WriteString(`{"type":"message","id":"torn`) // torn line mid-file
				b.WriteByte('\n')
			}
		}
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(ctxT(t), path, Options{})
		if err != nil {
			if !errors.Is(err, ErrNotSession) && !errors.Is(err, ErrDamaged) {
				t.Fatalf("Open: unexpected error kind %v", err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, b.Bytes()) {
				t.Fatal("a refused file was changed")
			}
			return
		}
		defer s.Close()
		checkTree(t, s)
		if _, err := s.Context(); err != nil {
			t.Fatalf("Context: %v", err)
		}
		_ = s.Warnings()
		_ = s.Labels()
		_ = s.Name()
		_ = s.Settings()
		a, err := s.AppendMessage(ctxT(t), userMsg("more"))
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		r, err := Open(ctxT(t), path, Options{})
		if err != nil {
			t.Fatalf("reopen after append: %v", err)
		}
		defer r.Close()
		if r.Leaf() != a.Entry.ID || r.Len() != s.Len() {
			t.Fatalf("reopened: leaf %s (want %s), %d entries (want %d)", r.Leaf(), a.Entry.ID, r.Len(), s.Len())
		}
		checkTree(t, r)
	})
}

func checkTree(t *testing.T, s *Session) {
	t.Helper()
	seen := map[string]bool{}
	path := s.Path()
	for i, e := range path {
		if seen[e.ID] {
			t.Fatalf("path repeats %s", e.ID)
		}
		seen[e.ID] = true
		if i > 0 && e.ParentID != path[i-1].ID {
			t.Fatalf("path link %s→%s broken", e.ParentID, path[i-1].ID)
		}
	}
	if len(path) > 0 && path[len(path)-1].ID != s.Leaf() {
		t.Fatalf("path ends at %s, leaf is %s", path[len(path)-1].ID, s.Leaf())
	}
}

// Decoding a message and encoding it again loses nothing a decoder sees.
func FuzzMessageRoundTrip(f *testing.F) {
	f.Add([]byte(`{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"toolCall","id":"c","name":"read","arguments":{"p":1}},{"type":"thinking","thinking":"t","thinkingSignature":"s","redacted":true}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":5,"rawStopReason":"end"}`))
	f.Add([]byte(`{"role":"user","content":"plain","timestamp":1,"x":[1]}`))
	f.Add([]byte(`{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"details":{"a":1},"isError":true,"timestamp":2}`))
	f.Add([]byte(`{"role":"bashExecution","command":"ls","output":"o","exitCode":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Message
		if json.Unmarshal(b, &m) != nil {
			return
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("marshal %+v: %v", m, err)
		}
		var m2 Message
		if err := json.Unmarshal(out, &m2); err != nil {
			t.Fatalf("re-decode %s: %v", out, err)
		}
		out2, err := json.Marshal(m2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}
