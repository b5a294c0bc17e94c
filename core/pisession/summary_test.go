package pisession

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// summariseByOpen is how a listing used to summarise a file: open it whole
// and look at its tree. It stays here as the definition the streaming
// summary must agree with.
func summariseByOpen(t testing.TB, path string, opts Options) Summary {
	t.Helper()
	sum := Summary{Path: path}
	if fi, err := os.Stat(path); err == nil {
		sum.Size, sum.ModTime = fi.Size(), fi.ModTime()
	}
	opts.ReadOnly = true
	s, err := Open(ctxT(t), path, opts)
	if err != nil {
		sum.Broken = true
		sum.Problem = oneLine(strings.TrimPrefix(err.Error(), "open session "+path+": "))
		sum.LastActivity = sum.ModTime
		return sum
	}
	defer s.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.header
	sum.ID, sum.Cwd, sum.Created, sum.ParentSession = h.ID, h.Cwd, h.Timestamp, h.ParentSession
	sum.Entries = len(s.nodes)
	var last int64 = -1
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.typ == TypeSessionInfo {
			var si SessionInfo
			if json.Unmarshal(n.raw, &si) == nil {
				sum.Name = trimSpace(si.Name)
			}
		}
		if n.typ != TypeMessage {
			continue
		}
		sum.Messages++
		if n.role != roleUser && n.role != roleAssistant {
			continue
		}
		msg := findMember(n.raw, "message")
		if t := messageMillis(msg, n.ts()); t > last {
			last = t
		}
		if sum.FirstMessage == "" && n.role == roleUser {
			sum.FirstMessage = firstText(msg, maxFirstMessage)
		}
	}
	switch {
	case last > 0:
		sum.LastActivity = time.UnixMilli(last)
	default:
		if t, err := ParseTimestamp(h.Timestamp); err == nil {
			sum.LastActivity = t
		} else {
			sum.LastActivity = sum.ModTime
		}
	}
	w := append(append([]string(nil), s.warnings...), s.danglingWarnings()...)
	if len(w) > 0 {
		sum.Problem = oneLine(w[0])
		if more := len(w) - 1 + s.moreWarns; more > 0 {
			sum.Problem += fmt.Sprintf(" (and %d more)", more)
		}
	}
	return sum
}

// fuzzSession turns a fuzzer's spec into a session file: a word is an
// entry (its id, its parent, its kind), anything else a line of junk; see
// the cases below. It covers what the listing must count as Open does.
func fuzzSession(spec []byte, version uint8) []byte {
	var b bytes.Buffer
	switch version % 6 {
	case 0:
		b.WriteString(`{"type":"session","version":3,"id":"fz","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n")
	case 1:
		b.WriteString(`{"type":"session","id":"v1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n")
	case 2:
		b.WriteString(`{"type":"session","version":2,"id":"v2","timestamp":"bad","cwd":"/p","parentSession":"/x.jsonl"}` + "\n")
	case 3:
		b.WriteString(`{"type":"session","version":9,"id":"v9","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n")
	case 4:
		b.WriteString("\n  \n{oops\n" + `{"type":"session","version":3,"id":"late","cwd":"/q"}` + "\n")
	}
	words := bytes.Fields(spec)
	for k, w := range words {
		if len(w) < 2 {
			b.Write(w) // junk, or a blank line
			b.WriteByte('\n')
			continue
		}
		id := fmt.Sprintf("%q", string(w[:1]))
		switch w[0] {
		case '0':
			id = "null"
		case '1':
			id = `"\u0061"` // "a", escaped
		case '2':
			id = `""`
		}
		parent := `null`
		switch {
		case w[1] == '-':
		case w[1] == '~':
			parent = `7`
		default:
			parent = fmt.Sprintf("%q", string(w[1:2]))
		}
		kind := 0
		if len(w) > 2 {
			kind = int(w[2])
		}
		idPart := `"id":` + id + `,`
		if w[0] == '3' {
			idPart = "" // no id at all
		}
		var line string
		switch kind % 7 {
		case 0, 1:
			role := []string{"user", "assistant", "toolResult", "custom"}[(int(w[0])+k)%4]
			content := fmt.Sprintf(`[{"type":"text","text":"%s %d"}]`, w, k)
			if kind%2 == 1 {
				content = fmt.Sprintf(`"plain %s"`, w)
			}
			line = fmt.Sprintf(`{"type":"message",%s"parentId":%s,"timestamp":"2026-01-01T00:00:%02d.000Z","message":{"role":"%s","content":%s,"timestamp":%d}}`,
				idPart, parent, k%60, role, content, 1767225600000+int64(k)*int64(w[0]))
		case 2:
			line = fmt.Sprintf(`{"type":"session_info",%s"parentId":%s,"name":"  name %s  "}`, idPart, parent, w)
		case 3:
			line = fmt.Sprintf(`{"type":"session_info",%s"parentId":%s,"name":5}`, idPart, parent)
		case 4:
			line = `{"type":"session","version":3,"id":"again"}`
		case 5:
			line = fmt.Sprintf(`{"type":"custom",%s"parentId":%s,"customType":"caf\xe9","data":{"long":"%s"}}`, idPart, parent, strings.Repeat("x", int(w[0])))
		case 6:
			line = fmt.Sprintf(`{"type":"message",%s"parentId":%s,"message":{"role":"user","content":""}}`, idPart, parent)
		}
		b.WriteString(line)
		if k < len(words)-1 || len(w) < 4 || w[3] != '!' {
			b.WriteByte('\n') // a last word ending in "!" leaves its line unterminated
		}
	}
	if len(spec) > 0 && spec[0] == '#' {
		b.WriteString(`{"type":"message","id":"torn`) // a torn last line
	}
	return b.Bytes()
}

// Listing summarises a file as opening it would: the same counts, name,
// first message, times, problem and brokenness, whatever the file holds.
func FuzzSummaryAgreesWithOpen(f *testing.F) {
	f.Add([]byte("a-0 ba1 cb2 dc0"), uint8(0), uint8(0))
	f.Add([]byte("ab ba"), uint8(0), uint8(0))       // a cycle
	f.Add([]byte("a-0 bz0 cb0"), uint8(0), uint8(0)) // a dangling parent
	f.Add([]byte("a-0 a-0 ba0"), uint8(0), uint8(0)) // a repeated id
	f.Add([]byte("aa"), uint8(0), uint8(0))          // its own parent
	f.Add([]byte("a-0 1a0 2-0 0-0 3-0 b~0"), uint8(2), uint8(0))
	f.Add([]byte("a-2 b-3 c-2 d-6 e-4 f-5"), uint8(3), uint8(0))
	f.Add([]byte("a-0 ab0 ab0 ba0"), uint8(1), uint8(0)) // version 1: a line, whatever the ids say
	f.Add([]byte("#a-0 b-0 cb0!"), uint8(4), uint8(0))
	f.Add([]byte("a-0 ba0 cb0 dc0!"), uint8(5), uint8(40)) // no header; short lines limit
	f.Add([]byte("az0 bz0 cz0 dz0 ez0 fz0 gz0 a-0"), uint8(0), uint8(90))
	f.Fuzz(func(t *testing.T, spec []byte, version, maxLine uint8) {
		if len(spec) > 600 {
			return
		}
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, fuzzSession(spec, version), 0o600); err != nil {
			t.Fatal(err)
		}
		opts := Options{}
		if maxLine > 0 {
			opts.MaxLineBytes = int(maxLine) * 2
		}
		want := summariseByOpen(t, path, opts)
		got := Summarise(ctxT(t), path, opts)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("streaming summary\n%+v\nwant (as Open sees it)\n%+v\nfile:\n%s", got, want, readFile(t, path))
		}
	})
}

// The reference sessions pi wrote summarise as opening them does.
func TestSummaryAgreesWithOpenOnPiFiles(t *testing.T) {
	t.Parallel()
	ref := referenceDir(t)
	files, _ := filepath.Glob(filepath.Join(ref, "*.jsonl"))
	if len(files) == 0 {
		t.Fatalf("no sessions in %s", ref)
	}
	for _, p := range files {
		if got, want := Summarise(ctxT(t), p, Options{}), summariseByOpen(t, p, Options{}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n%+v\nwant\n%+v", filepath.Base(p), got, want)
		}
	}
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	fn()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// sparseSession writes a session of size bytes that costs no disk and no
// time: a header, a hole of NUL bytes (one line far over the line limit),
// then a user message and an assistant reply.
func sparseSession(t *testing.T, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "2026-01-01T00-00-00-000Z_huge.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tail := "\n" + msgLine("aaaaaaaa", "", "user", "the question at the end", 1767225600000) + msgLine("bbbbbbbb", "aaaaaaaa", "assistant", "ok", 1767225601000)
	if _, err := f.WriteString(header("huge")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(tail), size-int64(len(tail))); err != nil {
		t.Fatal(err)
	}
	return path
}

// A session file far larger than pi-tui opens (300 MB) is listed by
// reading it as a stream, in a few MiB, with what it holds and why it does
// not open; opening it says so at once, without reading it.
func TestHugeSessionIsListedNotOpened(t *testing.T) {
	const size = 300 << 20
	path := sparseSession(t, size)
	dir := filepath.Dir(path)
	var list []Summary
	var err error
	if a := allocated(func() { list, err = List(ctxT(t), dir, nil, Options{}) }); a > 8<<20 {
		t.Errorf("listing a %d MiB file allocated %d MiB; it must be read as a stream", size>>20, a>>20)
	}
	if err != nil || len(list) != 1 {
		t.Fatalf("List: %v, %d", err, len(list))
	}
	s := list[0]
	if s.ID != "huge" || s.Entries != 2 || s.Messages != 2 || s.FirstMessage != "the question at the end" ||
		!s.LastActivity.Equal(time.UnixMilli(1767225601000)) || !s.Broken || s.Size != size {
		t.Errorf("summary %+v", s)
	}
	if want := "the file is 300.0 MiB, more than pi-tui opens (256.0 MiB); continue it in pi or start a new session"; !strings.HasPrefix(s.Problem, want) {
		t.Errorf("problem %q, want it to start %q", s.Problem, want)
	}

	var opened *Session
	if a := allocated(func() { opened, err = Open(ctxT(t), path, Options{}) }); a > 1<<20 {
		t.Errorf("refusing to open it allocated %d KiB", a>>10)
	}
	if opened != nil || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Open = %v, want ErrTooLarge", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, path) || !strings.Contains(msg, "300.0 MiB") ||
		!strings.Contains(msg, "256.0 MiB") || !strings.Contains(msg, "continue it in pi") {
		t.Errorf("the error must name the file, its size, the limit and what to do, in one line: %q", msg)
	}
}

// A file with more entries than pi-tui opens is counted in full, in memory
// that does not grow with it; opening it stops at the limit.
func TestManyEntriesAreCountedInBoundedMemory(t *testing.T) {
	const n, limit = 100_000, 1000
	path := idsFile(t, n, func(i int) (string, string) {
		if i == 0 {
			return hexID(i), ""
		}
		return hexID(i), hexID(i - 1)
	})
	opts := Options{MaxEntries: limit}
	var s Summary
	if a := allocated(func() { s = Summarise(ctxT(t), path, opts) }); a > 4<<20 {
		t.Errorf("summarising %d entries with a limit of %d allocated %d MiB", n, limit, a>>20)
	}
	if s.Entries != n || !s.Broken || !strings.Contains(s.Problem, "holds more than 1000 entries") {
		t.Errorf("summary: %d entries, broken %v, %q", s.Entries, s.Broken, s.Problem)
	}
	if _, err := Open(ctxT(t), path, opts); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("Open = %v, want ErrTooLarge naming the file", err)
	}
	// Under the limit, the same file lists and opens as usual.
	if s := Summarise(ctxT(t), path, Options{}); s.Broken || s.Entries != n || s.Problem != "" {
		t.Errorf("within the limits: %+v", s)
	}
}

// 100,000 entries sharing one id list in one pass (the listing keeps a
// hash per entry; Open used to relink the tree per repeated id).
func TestListingSharedIDs(t *testing.T) {
	t.Parallel()
	path := idsFile(t, 100_000, func(int) (string, string) { return "aaaaaaaa", "" })
	s := Summarise(ctxT(t), path, Options{})
	if s.Broken || s.Entries != 100_000 || s.Problem != "line 3 reuses the id aaaaaaaa of line 2; the later entry wins, as in pi (and 99998 more)" {
		t.Errorf("%+v", s)
	}
}

// A message's time is what decoding its timestamp into a float64 gives (as
// pi-tui did before it parsed the number itself), else the entry's.
func TestMessageMillisDecodesAsJSON(t *testing.T) {
	t.Parallel()
	entryTS := []byte(`"2026-01-01T00:00:01.000Z"`)
	fallback := time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC).UnixMilli()
	for _, v := range []string{`1767225600000`, `-5`, `1.5e3`, `0`, `null`, `"12"`, `true`, `{}`, `[1]`, `1e400`, `-1e400`, `9.9e18`, `123456789012345678901234567890`} {
		msg := []byte(`{"role":"user","timestamp":` + v + `}`)
		want := fallback
		var f float64
		if json.Unmarshal([]byte(v), &f) == nil {
			want = int64(f)
		}
		if got := messageMillis(msg, entryTS); got != want {
			t.Errorf("timestamp %s: %d, want %d", v, got, want)
		}
	}
}
