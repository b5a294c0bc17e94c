package pisession

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// A session flushed for pi that pi never wrote a conversation to goes back
// to memory and its file is removed, with the model and thinking level pi
// recorded as it started; flushed again, the same header and model change
// are written. A file pi appended a message to, a session with a message,
// and one this Session did not create deferred are left alone.
func TestUnflushRemovesOnlyWhatCameToNothing(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	s, _ := newSession(t, true)
	must(t)(s.AppendModelChange(ctx, "fake", "m1"))
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, s.File())
	appendLine(t, s.File(), `{"type":"thinking_level_change","id":"aa11bb22","parentId":null,"timestamp":"2026-12-01T05:00:09.000Z","thinkingLevel":"off"}`)
	if ok, err := s.Unflush(ctx); !ok || err != nil {
		t.Fatalf("Unflush = %v, %v", ok, err)
	}
	if _, err := os.Stat(s.File()); !errors.Is(err, fs.ErrNotExist) || s.Persisted() {
		t.Fatalf("the file is still there (%v), persisted %v", err, s.Persisted())
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, s.File()); got != before {
		t.Errorf("flushed again:\n%s\nwant:\n%s", got, before)
	}

	// pi appended a message: the file is pi's session now.
	appendLine(t, s.File(), `{"type":"message","id":"deadbeef","parentId":null,"timestamp":"2026-12-01T05:00:09.000Z","message":{"role":"user","content":"from pi","timestamp":9}}`)
	if ok, _ := s.Unflush(ctx); ok {
		t.Error("a file pi appended a message to was removed")
	}

	withMessage, _ := newSession(t, true)
	must(t)(withMessage.AppendMessage(ctx, userMsg("q")))
	withMessage.Flush(ctx)
	if ok, _ := withMessage.Unflush(ctx); ok || !strings.Contains(readFile(t, withMessage.File()), `"q"`) {
		t.Error("a session with a message was removed")
	}

	made, _ := newSession(t, false)
	if ok, _ := made.Unflush(ctx); ok {
		t.Error("a session created on disk was removed")
	}
}

// appendLine appends a line to a file, as pi appends to a session file.
func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}
