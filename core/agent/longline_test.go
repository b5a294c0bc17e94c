package agent

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// continueRe finds how a cut read says to go on.
var continueRe = regexp.MustCompile(`Continue with offset (\d+)(?: and column (\d+))?\.\]$`)

// readAll reads a file through the read tool the way a model would,
// following every continuation note, and returns what it saw.
func readAll(t *testing.T, root, path string) (string, int) {
	t.Helper()
	var got strings.Builder
	args := map[string]any{"path": path}
	calls := 0
	for {
		calls++
		if calls > 100 {
			t.Fatalf("no end after 100 reads; last args %v", args)
		}
		res := runTool(context.Background(), root, call("read", args))
		if res.IsError {
			t.Fatalf("read %v: %s", args, res.Text)
		}
		text := res.Text
		m := continueRe.FindStringSubmatchIndex(text)
		if m == nil {
			got.WriteString(text)
			return got.String(), calls
		}
		body := text[:m[0]]
		// The note starts on its own line after the content.
		body = strings.TrimSuffix(body, "\n[")
		body = body[:strings.LastIndex(body, "\n[")]
		if body == "" {
			t.Fatalf("read %v returned no content, only %q", args, text[m[0]:])
		}
		got.WriteString(body)
		line, _ := strconv.Atoi(text[m[2]:m[3]])
		args = map[string]any{"path": path, "offset": line}
		if m[4] >= 0 {
			col, _ := strconv.Atoi(text[m[4]:m[5]])
			args["column"] = col
		}
	}
}

// TestReadLongLine: a 64 KB one-line minified file is shown in parts, each
// with a way to read on, and the parts add up to the file.
func TestReadLongLine(t *testing.T) {
	root := tempRoot(t)
	var b strings.Builder
	for i := 0; b.Len() < 64*1024; i++ {
		fmt.Fprintf(&b, "var a%d=function(){return %d};ü", i, i) // multi-byte runes: cuts must respect them
	}
	want := b.String()
	os.WriteFile(filepath.Join(root, "app.min.js"), []byte(want), 0o644)
	got, calls := readAll(t, root, "app.min.js")
	if got != want {
		t.Errorf("reading on gave %d bytes in %d reads, want the file's %d bytes", len(got), calls, len(want))
	}
	if calls < 2 {
		t.Errorf("a 64 KB line came back in one read of at most 50 KiB?")
	}
	// Lines around a long one are kept whole.
	mixed := "short one\n" + want + "\nshort two\n"
	os.WriteFile(filepath.Join(root, "mixed.js"), []byte(mixed), 0o644)
	if got, _ := readAll(t, root, "mixed.js"); got != mixed {
		t.Errorf("mixed file read back as %d bytes, want %d", len(got), len(mixed))
	}
}

// TestReadMemoryIsBoundedByTheOutput: reading a file with one 64 MB line
// costs memory in proportion to what is shown, not to the line.
func TestReadMemoryIsBoundedByTheOutput(t *testing.T) {
	root := tempRoot(t)
	f, err := os.Create(filepath.Join(root, "huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	chunk := strings.Repeat("abcdefgh", 1024)
	for i := 0; i < 64<<20/len(chunk); i++ {
		w.WriteString(chunk)
	}
	w.WriteString("\nend\n")
	w.Flush()
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := runTool(context.Background(), root, call("read", map[string]any{"path": "huge.txt"}))
	runtime.ReadMemStats(&after)
	if res.IsError || len(res.Text) > readMaxBytes+512 || !strings.Contains(res.Text, "column") {
		t.Errorf("read = error %v, %d bytes, ends %q", res.IsError, len(res.Text), res.Text[max(0, len(res.Text)-200):])
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("reading 50 KiB of a 64 MB line allocated %d MB", alloc>>20)
	}
	// Reading on from deep inside the line is bounded too.
	runtime.ReadMemStats(&before)
	res = runTool(context.Background(), root, call("read", map[string]any{"path": "huge.txt", "offset": 1, "column": 60<<20 + 1}))
	runtime.ReadMemStats(&after)
	if res.IsError || !strings.HasPrefix(res.Text, "abcdefgh") {
		t.Errorf("read on = %.200q", res.Text)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("reading on at column 60M allocated %d MB", alloc>>20)
	}
}

// TestGrepSearchesLongLines: a match at the end of a 2 MB line is found
// and reported with a way to read it.
func TestGrepSearchesLongLines(t *testing.T) {
	root := tempRoot(t)
	line := strings.Repeat("x", 2<<20) + "NEEDLE" + strings.Repeat("y", 100)
	os.WriteFile(filepath.Join(root, "bundle.js"), []byte("first\n"+line+"\nlast NEEDLE\n"), 0o644)
	res := runTool(context.Background(), root, call("grep", map[string]string{"pattern": "NEEDLE"}))
	if res.IsError || strings.Contains(res.Text, "No matches") || !strings.Contains(res.Text, "bundle.js:2:") || !strings.Contains(res.Text, "bundle.js:3: last NEEDLE") {
		t.Fatalf("grep = %.500q", res.Text)
	}
	if len(res.Text) > 4096 {
		t.Errorf("grep printed %d bytes for two matches (the long line whole?)", len(res.Text))
	}
	col := strconv.Itoa(2<<20 + 1)
	if !strings.Contains(res.Text, "column "+col) {
		t.Errorf("grep does not say where in the long line the match is (column %s): %.500q", col, res.Text)
	}
	// Anchors keep their per-line meaning inside a long line.
	res = runTool(context.Background(), root, call("grep", map[string]string{"pattern": "^x+NEEDLEy+$"}))
	if !strings.Contains(res.Text, "bundle.js:2:") {
		t.Errorf("anchored grep = %.300q", res.Text)
	}
	res = runTool(context.Background(), root, call("grep", map[string]string{"pattern": "^NEEDLE"}))
	if !strings.HasPrefix(res.Text, "No matches") {
		t.Errorf("^NEEDLE matched inside a line: %.300q", res.Text)
	}
}

// TestGrepSaysWhatItDidNotSearch: "No matches." is never said when files
// were skipped.
func TestGrepSaysWhatItDidNotSearch(t *testing.T) {
	root := tempRoot(t)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("nothing here\n"), 0o644)
	os.WriteFile(filepath.Join(root, "blob.bin"), []byte("NEEDLE\x00\x01"), 0o644)
	mkfifo(t, filepath.Join(root, "pipe"))
	res := runTool(context.Background(), root, call("grep", map[string]string{"pattern": "NEEDLE"}))
	if res.Text == "No matches." || !strings.Contains(res.Text, "binary") || !strings.Contains(res.Text, "not a regular file") {
		t.Errorf("grep = %q", res.Text)
	}
}
