package sessionimport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// fixtureLines seeds a fuzz target with every line of the fixtures of a
// source.
func fixtureLines(f *testing.F, glob string) {
	files, _ := filepath.Glob(glob)
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			f.Add(append([]byte(nil), sc.Bytes()...), append([]byte(nil), sc.Bytes()...))
		}
	}
}

// checkWritable asserts that what a converted session holds is a session
// pi reads: WriteSession accepts it and it opens without warnings.
func checkWritable(t *testing.T, c *converted) {
	c.finish("t", false)
	c.addRecord(record{Source: Claude})
	if c.created.IsZero() {
		c.created = c.lastAt
	}
	for _, e := range c.entries {
		if _, err := json.Marshal(e.Fields); err != nil {
			t.Fatalf("entry %s does not marshal: %v", e.ID, err)
		}
	}
	dir := t.TempDir()
	path, err := pisession.WriteSession(t.Context(), dir, pisession.SessionDraft{ID: sessionID(c.key, c.created), Created: c.created, Cwd: "/x", Entries: c.entries}, pisession.Options{})
	if err != nil {
		t.Fatalf("the converted session cannot be written: %v", err)
	}
	s, err := pisession.Open(t.Context(), path, pisession.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("the written session does not open: %v", err)
	}
	defer s.Close()
	if w := s.Warnings(); len(w) > 0 {
		t.Fatalf("the written session opens with warnings %v", w)
	}
	if _, err := s.Context(); err != nil {
		t.Fatalf("the written session has no context: %v", err)
	}
}

// FuzzClaudeLines feeds two arbitrary lines to the Claude Code reader: it
// must not panic, and what it makes must be a session pi reads.
func FuzzClaudeLines(f *testing.F) {
	fixtureLines(f, "testdata/home/.claude/projects/*/*.jsonl")
	f.Fuzz(func(t *testing.T, a, b []byte) {
		c := newConverted("k")
		r := &claudeReader{c: c, byUUID: map[string]string{}, names: map[string]string{}, unknown: map[string]bool{}}
		r.line(1, a, func(int, string) {})
		r.line(2, b, func(int, string) {})
		r.flush()
		checkWritable(t, c)
	})
}

// FuzzCodexLines is FuzzClaudeLines for Codex's lines.
func FuzzCodexLines(f *testing.F) {
	fixtureLines(f, "testdata/home/.codex/sessions/*/*/*/*.jsonl")
	f.Fuzz(func(t *testing.T, a, b []byte) {
		c := newConverted("k")
		r := &codexReader{c: c, names: map[string]string{}, unknown: map[string]bool{}}
		r.line(1, a, func(int, string) {})
		r.line(2, b, func(int, string) {})
		r.flushAssistant()
		r.flushUser()
		checkWritable(t, c)
	})
}

// FuzzOpenCodeMessage feeds an arbitrary message and part to the opencode
// conversion.
func FuzzOpenCodeMessage(f *testing.F) {
	f.Add([]byte(`{"role":"assistant","providerID":"anthropic","modelID":"m"}`), []byte(`{"type":"tool","callID":"c","tool":"bash","state":{"status":"completed","input":{"command":"ls"},"output":"x"}}`))
	f.Add([]byte(`{"role":"user"}`), []byte(`{"type":"text","text":"hi"}`))
	f.Add([]byte(`{"role":"assistant","summary":true}`), []byte(`{"type":"step-start"}`))
	f.Fuzz(func(t *testing.T, msg, part []byte) {
		c := newConverted("k")
		convertOpenCode(c, []ocMessage{{id: "m1", created: 1, data: msg, parts: []json.RawMessage{part, part}}}, func(string) {})
		checkWritable(t, c)
	})
}
