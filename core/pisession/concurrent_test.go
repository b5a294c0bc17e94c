package pisession

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const appendsPerWriter = 500

// checkWholeAndReachable asserts what the issue asks of two writers: every
// line whole and parseable, every entry reachable from a root, and every
// message each writer sent present once.
//
// blankOK allows empty lines: with a writer that takes no lock (pi), a
// Session that finds another writer's line half written for longer than
// it waits adds a newline before its own line, which leaves a blank line
// once the other write completes. pi and pi-tui both skip blank lines.
func checkWholeAndReachable(t *testing.T, path string, writers []string, blankOK bool) {
	t.Helper()
	data := readFile(t, path)
	if !strings.HasSuffix(data, "\n") {
		t.Errorf("the file does not end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	blanks := 0
	for i, l := range lines {
		if l == "" && blankOK {
			blanks++
			continue
		}
		if err := validLine([]byte(l)); err != nil {
			t.Fatalf("line %d is not whole JSON (%v): %.120q", i+1, err, l)
		}
	}
	s := mustOpen(t, path)
	if w := s.Warnings(); len(w) > 0 {
		t.Errorf("warnings: %q", w)
	}
	if blanks > 0 {
		t.Logf("%d blank lines", blanks)
	}
	if want := 1 + len(writers)*appendsPerWriter; len(lines)-blanks != want {
		t.Errorf("%d lines, want %d", len(lines), want)
	}
	// Reachable: walking down from the roots visits every entry.
	seen := 0
	stack := s.Children("")
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = append(stack[:len(stack)-1], s.Children(e.ID)...)
		seen++
	}
	if seen != s.Len() {
		t.Errorf("%d of %d entries reachable from the roots", seen, s.Len())
	}
	texts := map[string]int{}
	for _, e := range s.Entries() {
		if e.ParentID != "" {
			if _, ok := s.Get(e.ParentID); !ok {
				t.Errorf("entry %s has a missing parent %s", e.ID, e.ParentID)
			}
		}
		m, err := e.Message()
		if err != nil {
			t.Fatal(err)
		}
		texts[m.Content.PlainText("")]++
	}
	for _, w := range writers {
		for i := range appendsPerWriter {
			if n := texts[fmt.Sprintf("%s-%d", w, i)]; n != 1 {
				t.Errorf("message %s-%d appears %d times", w, i, n)
			}
		}
	}
}

func newEmptySessionFile(t *testing.T) string {
	t.Helper()
	s, err := Create(ctxT(t), t.TempDir(), NewSession{Cwd: "/p"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return s.File()
}

// Two processes append 500 entries each to one session at the same time.
func TestTwoWriterProcesses(t *testing.T) {
	t.Parallel()
	path := newEmptySessionFile(t)
	ctx := ctxT(t)
	var cmds []*exec.Cmd
	var gates []io.WriteCloser
	var outs []*strings.Builder
	for _, name := range []string{"p0", "p1"} {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "PISESSION_WRITER_FILE="+path, "PISESSION_WRITER_NAME="+name)
		gate, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, gates, outs = append(cmds, cmd), append(gates, gate), append(outs, out)
	}
	// Both writers wait on their stdin; closing both lets them go together.
	for _, g := range gates {
		g.Close()
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v\n%s", i, err, outs[i])
		}
		t.Logf("writer %d: %s", i, strings.TrimSpace(lastLine(outs[i].String())))
	}
	checkWholeAndReachable(t, path, []string{"p0", "p1"}, false)
}

func lastLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "arrivals") {
			return l
		}
	}
	return ""
}

// TestHelperWriterProcess is the body of one writer process of
// TestTwoWriterProcesses; run directly it does nothing.
func TestHelperWriterProcess(t *testing.T) {
	t.Parallel()
	path := os.Getenv("PISESSION_WRITER_FILE")
	if path == "" {
		t.Skip("helper process for TestTwoWriterProcesses")
	}
	name := os.Getenv("PISESSION_WRITER_NAME")
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil { // the start gate
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	arrivals := 0
	for i := range appendsPerWriter {
		a, err := s.AppendMessage(context.Background(), userMsg(fmt.Sprintf("%s-%d", name, i)))
		if err != nil {
			t.Fatal(err)
		}
		arrivals += len(a.Arrived)
	}
	fmt.Printf("arrivals seen by %s: %d\n", name, arrivals)
}

// Two Sessions in one process (two descriptors, so the advisory lock is
// contended for real) and a third writer that behaves like pi: no lock,
// one O_APPEND write per line. Nothing is lost or torn.
func TestTwoSessionsAndAnUnlockedWriter(t *testing.T) {
	t.Parallel()
	path := newEmptySessionFile(t)
	ctx := ctxT(t)
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for _, name := range []string{"g0", "g1"} {
		s := mustOpen(t, path)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range appendsPerWriter {
				if _, err := s.AppendMessage(ctx, userMsg(fmt.Sprintf("%s-%d", name, i))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // pi's way: appendFileSync of one whole line, no lock
		defer wg.Done()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			errs <- err
			return
		}
		defer f.Close()
		for i := range appendsPerWriter {
			line := fmt.Sprintf(`{"type":"message","id":"9%07x","parentId":null,"timestamp":"2026-12-01T05:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"pi-%d"}],"timestamp":1}}`+"\n", i, i)
			if _, err := f.Write([]byte(line)); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkWholeAndReachable(t, path, []string{"g0", "g1", "pi"}, true)
}

// Before appending, a Session reads what others appended and reports it;
// its branch follows when they continued it.
func TestAppendReadsArrivalsFirst(t *testing.T) {
	t.Parallel()
	path := newEmptySessionFile(t)
	ctx := ctxT(t)
	a, b := mustOpen(t, path), mustOpen(t, path)
	u := must(t)(a.AppendMessage(ctx, userMsg("from a")))
	got, err := b.Refresh(ctx)
	if err != nil || ids(got) != u.ID {
		t.Fatalf("Refresh = %s, %v; want %s", ids(got), err, u.ID)
	}
	if b.Leaf() != u.ID {
		t.Errorf("b's leaf %q did not follow the continued branch to %s", b.Leaf(), u.ID)
	}
	r := must(t)(b.AppendMessage(ctx, assistantMsg("from b")))
	if r.ParentID != u.ID {
		t.Errorf("b's reply hangs under %s", r.ParentID)
	}
	// pi appends a line (no lock): a's next append reports it first.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	line := `{"type":"message","id":"deadbeef","parentId":"` + r.ID + `","timestamp":"2026-12-01T05:00:09.000Z","message":{"role":"user","content":"from pi","timestamp":9}}` + "\n"
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
	res, err := a.AppendMessage(ctx, assistantMsg("a again"))
	if err != nil {
		t.Fatal(err)
	}
	if ids(res.Arrived) != r.ID+" deadbeef" {
		t.Errorf("arrived %s, want %s deadbeef", ids(res.Arrived), r.ID)
	}
	if res.Entry.ParentID != "deadbeef" {
		t.Errorf("a's entry hangs under %s, want pi's deadbeef", res.Entry.ParentID)
	}
	// Entries on another branch leave the leaf alone; AtFileLeaf follows
	// the file's last entry anyway.
	if _, err := b.Branch(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if a.Leaf() != res.Entry.ID {
		t.Errorf("a's leaf moved to %s on another writer's branch move", a.Leaf())
	}
	x, err := a.Append(ctx, TypeCustom, map[string]string{"customType": "t"}, AppendOptions{AtFileLeaf: true})
	if err != nil {
		t.Fatal(err)
	}
	if x.Entry.ParentID != u.ID {
		t.Errorf("AtFileLeaf parent %s, want the file's leaf %s", x.Entry.ParentID, u.ID)
	}
}

// A crash mid-write leaves a torn last line: it is skipped with a warning,
// the next append starts on a new line, and nothing glues together.
func TestTornLastLine(t *testing.T) {
	t.Parallel()
	path := newEmptySessionFile(t)
	ctx := ctxT(t)
	s := mustOpen(t, path)
	u := must(t)(s.AppendMessage(ctx, userMsg("before crash")))
	s.Close()
	torn := `{"type":"message","id":"0badf00d","parentId":"` + u.ID + `","timestamp":"2026-12-01T05:0`
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(torn)
	f.Close()

	r := mustOpen(t, path)
	if w := r.Warnings(); len(w) != 1 || !strings.Contains(w[0], "incomplete") {
		t.Errorf("warnings %q", w)
	}
	if r.Leaf() != u.ID {
		t.Errorf("leaf %s, want %s", r.Leaf(), u.ID)
	}
	e := must(t)(r.AppendMessage(ctx, userMsg("after crash")))
	data := readFile(t, path)
	if !strings.Contains(data, torn+"\n"+string(e.Raw)+"\n") {
		t.Errorf("the new line glued onto the torn one:\n%s", data)
	}
	again := mustOpen(t, path)
	if again.Leaf() != e.ID || e.ParentID != u.ID {
		t.Errorf("reopened leaf %s (parent %s)", again.Leaf(), e.ParentID)
	}
	if w := again.Warnings(); len(w) != 1 || !strings.Contains(w[0], "line 3 is not valid JSON") {
		t.Errorf("warnings after reopening %q", w)
	}

	// A last line that is whole but lacks its newline is an entry (pi reads
	// it too), and the next append adds the newline first.
	path2 := newEmptySessionFile(t)
	f, _ = os.OpenFile(path2, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"type":"custom","id":"0000000a","parentId":null,"timestamp":"2026-12-01T05:00:00.000Z","customType":"x"}`)
	f.Close()
	s2 := mustOpen(t, path2)
	if s2.Leaf() != "0000000a" || len(s2.Warnings()) != 0 {
		t.Fatalf("leaf %q warnings %q", s2.Leaf(), s2.Warnings())
	}
	e2 := must(t)(s2.AppendMessage(ctx, userMsg("x")))
	if !strings.HasSuffix(readFile(t, path2), `"customType":"x"}`+"\n"+string(e2.Raw)+"\n") || e2.ParentID != "0000000a" {
		t.Errorf("file:\n%s", readFile(t, path2))
	}
}

// pi rewrites a file in place (or it is replaced by a rename): the next
// refresh reads it again from the start and reports the new entries.
func TestFileReplacedUnderneath(t *testing.T) {
	t.Parallel()
	path := newEmptySessionFile(t)
	ctx := ctxT(t)
	s := mustOpen(t, path)
	u := must(t)(s.AppendMessage(ctx, userMsg("one")))
	data := readFile(t, path)
	extra := `{"type":"message","id":"0000beef","parentId":"` + u.ID + `","timestamp":"2026-12-01T05:00:09.000Z","message":{"role":"user","content":"two","timestamp":9}}` + "\n"
	tmp := filepath.Join(filepath.Dir(path), "tmp")
	writeFile(t, tmp, data+extra)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	got, err := s.Refresh(ctx)
	if err != nil || ids(got) != "0000beef" {
		t.Fatalf("Refresh after replace = %s, %v", ids(got), err)
	}
	e := must(t)(s.AppendMessage(ctx, userMsg("three")))
	if e.ParentID != "0000beef" || !strings.HasSuffix(readFile(t, path), string(e.Raw)+"\n") {
		t.Errorf("append after replace went to %s", e.ParentID)
	}
	if n := strconv.Itoa(strings.Count(readFile(t, path), "\n")); n != "4" {
		t.Errorf("%s lines", n)
	}
}

// pi writes a line in the moment between a Session's refresh and its
// write: the Session still reads it (in file order) and reports it.
func TestLineWrittenJustBeforeAppendIsRead(t *testing.T) {
	t.Parallel()
	path := newEmptySessionFile(t)
	ctx := ctxT(t)
	s := mustOpen(t, path)
	u := must(t)(s.AppendMessage(ctx, userMsg("one")))
	piLine := `{"type":"message","id":"00000bee","parentId":"` + u.ID + `","timestamp":"2026-12-01T05:00:09.000Z","message":{"role":"user","content":"pi","timestamp":9}}` + "\n"
	s.beforeWrite = func() {
		s.beforeWrite = nil
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Error(err)
			return
		}
		f.WriteString(piLine)
		f.Close()
	}
	res, err := s.AppendMessage(ctx, userMsg("two"))
	if err != nil {
		t.Fatal(err)
	}
	if ids(res.Arrived) != "00000bee" {
		t.Errorf("arrived %q, want pi's line", ids(res.Arrived))
	}
	if got, want := ids(s.Entries()), ids(mustOpen(t, path).Entries()); got != want {
		t.Errorf("in memory %s, in the file %s", got, want)
	}
	if !strings.HasSuffix(readFile(t, path), piLine+string(res.Entry.Raw)+"\n") {
		t.Errorf("file:\n%s", readFile(t, path))
	}
}

// pi upgrades an old file by rewriting it in place (same inode, longer):
// a Session holding it notices from the header and reads it again.
func TestFileRewrittenInPlace(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "old.jsonl")
	v2 := `{"type":"session","version":2,"id":"old2","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}
{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}
`
	writeFile(t, path, v2)
	s := mustOpen(t, path)
	v3 := strings.Replace(v2, `"version":2`, `"version":3`, 1) +
		`{"type":"message","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[],"api":"x","provider":"p","model":"m","stopReason":"stop","timestamp":2}}` + "\n"
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0) // as writeFileSync does
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(v3)
	f.Close()
	got, err := s.Refresh(ctxT(t))
	if err != nil || ids(got) != "bbbbbbbb" {
		t.Fatalf("Refresh = %s, %v", ids(got), err)
	}
	if s.Header().Version != 3 || s.Leaf() != "bbbbbbbb" {
		t.Errorf("after the rewrite: version %d, leaf %s", s.Header().Version, s.Leaf())
	}
}
