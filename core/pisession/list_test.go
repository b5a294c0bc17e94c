package pisession

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

const goodHeader = `{"type":"session","version":3,"id":"%s","timestamp":"2026-12-01T05:00:00.000Z","cwd":"/p"}` + "\n"

func header(id string) string { return strings.Replace(goodHeader, "%s", id, 1) }

func msgLine(id, parent, role, text string, ts int) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2026-12-01T05:00:01.000Z","message":{"role":"` + role +
		`","content":[{"type":"text","text":"` + text + `"}],"timestamp":` + itoa(ts) + `}}` + "\n"
}

func itoa(i int) string { return strconv.Itoa(i) }

type snapshot map[string]string

func snap(t *testing.T, dir string) snapshot {
	t.Helper()
	out := snapshot{}
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		fi, err := os.Lstat(filepath.Join(dir, de.Name()))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out[de.Name()] = readFile(t, filepath.Join(dir, de.Name())) + "|" + fi.ModTime().String()
	}
	return out
}

// A folder of sessions, some of them broken in each way the issue names:
// the list shows every one, the broken ones with a one-line reason, the
// good ones as usual, and no file is changed by listing or opening.
func TestListShowsBrokenFilesWithAReason(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := ctxT(t)
	good, err := Create(ctx, dir, NewSession{Cwd: "/p"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	must(t)(good.AppendMessage(ctx, userMsg("first question")))
	must(t)(good.AppendMessage(ctx, assistantMsg("answer")))
	must(t)(good.SetName(ctx, "Good one"))
	good.Close()

	big := strings.Repeat("x", 8*maxBlock) // longer than any block a read takes; TestLongLines has 50 MB
	files := map[string]string{
		"notjsonl.jsonl":  "\x89PNG\r\n\x1a\n\x00\x00binary\x00\n",
		"badheader.jsonl": msgLine("aaaaaaaa", "", "user", "hi", 1),
		"empty.jsonl":     "",
		"badutf8.jsonl":   header("u") + msgLine("aaaaaaaa", "", "user", "caf\xe9 \xff", 1),
		"dangling.jsonl":  header("d") + msgLine("aaaaaaaa", "", "user", "hi", 1) + msgLine("bbbbbbbb", "nowhere0", "assistant", "lost", 2),
		"cycle.jsonl":     header("c") + msgLine("aaaaaaaa", "bbbbbbbb", "user", "a", 1) + msgLine("bbbbbbbb", "aaaaaaaa", "user", "b", 2),
		"longline.jsonl":  header("l") + msgLine("aaaaaaaa", "", "user", big, 1) + msgLine("bbbbbbbb", "aaaaaaaa", "assistant", "ok", 2),
		"notes.txt":       "not a session\n",
	}
	for name, data := range files {
		writeFile(t, filepath.Join(dir, name), data)
	}
	before := snap(t, dir)

	list, err := List(ctx, dir, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Summary{}
	for _, s := range list {
		byName[filepath.Base(s.Path)] = s
		if strings.Contains(s.Problem, "\n") {
			t.Errorf("%s: reason is not one line: %q", s.Path, s.Problem)
		}
	}
	if len(list) != 8 {
		t.Errorf("listed %d files, want 8 (the .txt is not a session)", len(list))
	}
	g := byName[filepath.Base(good.File())]
	if g.Broken || g.Problem != "" || g.Name != "Good one" || g.FirstMessage != "first question" || g.Messages != 2 || g.Entries != 3 || g.ID != good.ID() {
		t.Errorf("good session summary %+v", g)
	}
	want := map[string]struct {
		broken bool
		reason string
	}{
		"notjsonl.jsonl":  {true, "no line is a session header"},
		"badheader.jsonl": {true, "line 1 is not a session header"},
		"empty.jsonl":     {true, "the file is empty"},
		"cycle.jsonl":     {true, "is its own ancestor"},
		"badutf8.jsonl":   {false, "not UTF-8"},
		"dangling.jsonl":  {false, "names a parent nowhere0 that is not in the file"},
		"longline.jsonl":  {false, ""},
	}
	for name, w := range want {
		s := byName[name]
		if s.Broken != w.broken || !strings.Contains(s.Problem, w.reason) || (w.reason == "" && s.Problem != "") {
			t.Errorf("%s: broken=%v problem=%q; want broken=%v and %q", name, s.Broken, s.Problem, w.broken, w.reason)
		}
	}
	if l := byName["longline.jsonl"]; l.Messages != 2 || len(l.FirstMessage) != maxFirstMessage {
		t.Errorf("long line summary: %d messages, first message %d bytes", l.Messages, len(l.FirstMessage))
	}

	// Opening: clear errors for the broken ones, warnings for the others.
	for name, w := range want {
		s, err := Open(ctx, filepath.Join(dir, name), Options{})
		if w.broken {
			if err == nil || !(errors.Is(err, ErrNotSession) || errors.Is(err, ErrDamaged)) {
				t.Errorf("Open %s = %v, want ErrNotSession or ErrDamaged", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Open %s: %v", name, err)
			continue
		}
		if name == "badutf8.jsonl" {
			c, _ := s.Context()
			if got := contextTexts(t, c); len(got) != 1 || got[0] != "user:caf\uFFFD \uFFFD" {
				t.Errorf("invalid UTF-8 reads as %q, want U+FFFD as in pi", got)
			}
		}
		if name == "dangling.jsonl" && (s.Leaf() != "bbbbbbbb" || len(s.Path()) != 1) {
			t.Errorf("dangling: leaf %s path %s (pi treats the orphan as a root)", s.Leaf(), ids(s.Path()))
		}
		s.Close()
	}
	after := snap(t, dir)
	for name, b := range before {
		if after[name] != b {
			t.Errorf("%s changed by listing or opening", name)
		}
	}
}

// A line over the limit is skipped without being held in memory; a 50 MB
// line under it is held once.
func TestLongLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	big := strings.Repeat("y", 50<<20)
	writeFile(t, path, header("l")+msgLine("aaaaaaaa", "", "user", big, 1)+msgLine("bbbbbbbb", "aaaaaaaa", "assistant", "ok", 2))

	s, err := Open(ctxT(t), path, Options{MaxLineBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Warnings(); len(w) == 0 || !strings.Contains(w[0], "over the 1048576-byte limit") {
		t.Errorf("warnings %q", w)
	}
	if s.Len() != 1 || s.Leaf() != "bbbbbbbb" {
		t.Errorf("%d entries, leaf %s", s.Len(), s.Leaf())
	}
	s.Close()

	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	s, err = Open(ctxT(t), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 52<<20+4<<20 {
		t.Errorf("opening a file with a 50 MiB line allocated %d MiB; the line must be held once", alloc>>20)
	}
	if s.Len() != 2 || len(s.Warnings()) != 0 {
		t.Errorf("%d entries, warnings %q", s.Len(), s.Warnings())
	}
	s.Close()
}

// With an index, a listing rereads only files whose size or time changed.
func TestListUsesTheIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := ctxT(t)
	a := filepath.Join(dir, "a.jsonl")
	b := filepath.Join(dir, "b.jsonl")
	writeFile(t, a, header("a")+msgLine("aaaaaaaa", "", "user", "alpha", 1))
	writeFile(t, b, header("b")+msgLine("aaaaaaaa", "", "user", "bravo", 2))
	idx := NewMemIndex()
	if _, err := List(ctx, dir, idx, Options{}); err != nil {
		t.Fatal(err)
	}
	// Same size and time, other text: the index answers, so the listing
	// still shows the old text (proof the file was not read).
	fi, _ := os.Stat(a)
	writeFile(t, a, header("a")+msgLine("aaaaaaaa", "", "user", "ALPHA", 1))
	os.Chtimes(a, fi.ModTime(), fi.ModTime())
	// b grows: it is read again.
	f, _ := os.OpenFile(b, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(msgLine("bbbbbbbb", "aaaaaaaa", "assistant", "reply", 3))
	f.Close()
	list, err := List(ctx, dir, idx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Summary{}
	for _, s := range list {
		got[filepath.Base(s.Path)] = s
	}
	if got["a.jsonl"].FirstMessage != "alpha" {
		t.Errorf("unchanged file was reread: %q", got["a.jsonl"].FirstMessage)
	}
	if got["b.jsonl"].Messages != 2 {
		t.Errorf("changed file not reread: %d messages", got["b.jsonl"].Messages)
	}
	if list[0].Path != b { // newest activity first
		t.Errorf("order: %s first", list[0].Path)
	}

	// The JSON-file index survives a restart; a damaged one is rebuilt.
	ip := filepath.Join(t.TempDir(), "index.json")
	fx, err := LoadFileIndex(ip)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := List(ctx, dir, fx, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := fx.Save(); err != nil {
		t.Fatal(err)
	}
	fx2, err := LoadFileIndex(ip)
	if err != nil || fx2.Len() != 2 {
		t.Fatalf("reloaded index: %d, %v", fx2.Len(), err)
	}
	s, ok := fx2.Get(b, got["b.jsonl"].Size, got["b.jsonl"].ModTime)
	if !ok || s.Messages != 2 {
		t.Errorf("reloaded index entry %+v, %v", s, ok)
	}
	writeFile(t, ip, "{garbage")
	fx3, err := LoadFileIndex(ip)
	if err == nil || fx3 == nil || fx3.Len() != 0 {
		t.Errorf("damaged index: %v", err)
	}
	if l, err := List(ctx, dir, fx3, Options{}); err != nil || len(l) != 2 {
		t.Errorf("listing with a rebuilt index: %d, %v", len(l), err)
	}
	fx3.Retain(func(p string) bool { return p == a })
	if fx3.Len() != 1 {
		t.Errorf("Retain kept %d", fx3.Len())
	}
	if l, err := List(ctx, filepath.Join(dir, "missing"), nil, Options{}); err != nil || len(l) != 0 {
		t.Errorf("missing folder: %v, %v", l, err)
	}
}

func TestFindAndMostRecent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := ctxT(t)
	c := newClock()
	var made []*Session
	for range 3 {
		s, err := Create(ctx, dir, NewSession{Cwd: "/p"}, Options{Now: c.now})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		made = append(made, s)
	}
	writeFile(t, filepath.Join(dir, "2026-12-02T00-00-00-000Z_zzzz.jsonl"), "garbage\n")
	got, err := Find(dir, made[1].ID())
	if err != nil || got != made[1].File() {
		t.Errorf("Find = %s, %v", got, err)
	}
	if _, err := Find(dir, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(nope) = %v", err)
	}
	if _, err := Find(dir, made[0].ID()[:4]); err == nil {
		t.Error("an ambiguous prefix was accepted")
	}
	// The newest file with a header wins; the garbage file (newer) does not.
	old := time.Now().Add(-time.Hour)
	for i, s := range made {
		ts := old.Add(time.Duration(i) * time.Minute)
		if i == 0 {
			ts = old.Add(30 * time.Minute)
		}
		os.Chtimes(s.File(), ts, ts)
	}
	if p, err := MostRecent(dir); err != nil || p != made[0].File() {
		t.Errorf("MostRecent = %s, %v; want %s", p, err, made[0].File())
	}
	if _, err := MostRecent(t.TempDir()); !errors.Is(err, ErrNotFound) {
		t.Errorf("MostRecent of an empty folder: %v", err)
	}
}

// A long file is scanned in parallel batches; line numbers in warnings and
// the tree are the same as when read line by line.
func TestLongFileWithBadLinesInTheMiddle(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(header("big"))
	parent := ""
	for i := 1; i <= 10000; i++ {
		id := fmt.Sprintf("%08x", i)
		switch i {
		case 5000:
			b.WriteString("{not json\n")
			continue
		case 7000:
			b.WriteString("\n")
			continue
		}
		b.WriteString(msgLine(id, parent, "user", "t", i))
		parent = id
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	writeFile(t, path, b.String())
	s := mustOpen(t, path)
	w := s.Warnings()
	if len(w) != 1 || !strings.HasPrefix(w[0], "line 5001 is not valid JSON") {
		t.Errorf("warnings %q", w)
	}
	if s.Len() != 9998 || s.Leaf() != fmt.Sprintf("%08x", 10000) || len(s.Path()) != 9998 {
		t.Errorf("%d entries, leaf %s, path %d", s.Len(), s.Leaf(), len(s.Path()))
	}
}

// A summary keeps only the last few custom entries of a kept type: a file
// that repeats one many times costs a listing no more than a real one, and
// the latest (the one a caller takes) is there.
func TestSummaryKeepsTheLastCustomEntries(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x"}` + "\n")
	parent := "null"
	for i := range 1000 {
		id := fmt.Sprintf("e%04d", i)
		fmt.Fprintf(&b, `{"type":"custom","id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","customType":"kept","data":{"n":%d}}`+"\n", id, parent, i)
		parent = strconv.Quote(id)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := Summarise(ctxT(t), path, Options{SummaryCustom: []string{"kept"}})
	kept := sum.Custom["kept"]
	if len(kept) != maxKeptCustom || string(kept[len(kept)-1]) != `{"n":999}` || string(kept[0]) != `{"n":992}` {
		t.Fatalf("kept %d records: %s … %s (%s)", len(kept), kept[0], kept[len(kept)-1], sum.Problem)
	}
}

// A listing keeps what it shows of a first message, not the text decoded
// to find it: 2,000 sessions whose first message is 20 KB cost about their
// 1 KiB each (the review measured 6 KiB each when a cut shared its text).
func TestFirstMessageKeepsOnlyWhatIsShown(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("é", 10_000) // 20 KB, two bytes a character
	for i := range 2000 {
		body := header(fmt.Sprintf("s%04d", i)) +
			`{"type":"message","id":"m1","parentId":null,"timestamp":"2026-12-01T05:00:01.000Z","message":{"role":"user","content":"` + long + `","timestamp":1}}` + "\n"
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%04d.jsonl", i)), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	list, err := List(ctxT(t), dir, nil, Options{})
	if err != nil || len(list) != 2000 {
		t.Fatalf("listed %d: %v", len(list), err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if perSession := live / 2000; perSession > 3<<10 {
		t.Errorf("the listing keeps %d bytes a session alive (first message %d bytes shown)", perSession, len(list[0].FirstMessage))
	}
	runtime.KeepAlive(list)
}
