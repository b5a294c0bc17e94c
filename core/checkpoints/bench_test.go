package checkpoints

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// project makes n small files in folders of 100, and a store that has
// walked them once (a runtime's prewarm).
func benchProject(b *testing.B, n int) (*Store, *Recorder, string) {
	b.Helper()
	dir := b.TempDir()
	root := filepath.Join(dir, "proj")
	line := strings.Repeat("some text of a source file\n", 4)
	for i := range n {
		d := filepath.Join(root, fmt.Sprintf("d%04d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%03d.go", i%100)), []byte(fmt.Sprintf("// file %d\n%s", i, line)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	st := Open(filepath.Join(dir, "data"), Limits{})
	rec := st.Recorder("bench", filepath.Join(dir, "s.jsonl"), root)
	if err := rec.Prewarm(context.Background()); err != nil {
		b.Fatal(err)
	}
	return st, rec, root
}

var sizes = []int{10, 20_000, 100_000}

// BenchmarkWriteCall is the checkpoint of one write tool call: it looks
// at the written file only, whatever the project's size.
func BenchmarkWriteCall(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			_, rec, root := benchProject(b, n)
			target := filepath.Join(root, "d0000", "f000.go")
			i := 0
			for b.Loop() {
				i++
				m := rec.Before(context.Background(), Call{ToolCallID: "c", Tool: "write", Entry: "e", Paths: []string{target}})
				os.WriteFile(target, []byte(fmt.Sprintf("package x // %d\n", i)), 0o644)
				if res := m.After(context.Background()); len(res.Changes) != 1 {
					b.Fatalf("changes: %+v", res)
				}
			}
		})
	}
}

// BenchmarkFirstWriteOfAProcess is what the checkpoints of a headless
// one-write prompt cost: a new process's store over a project whose stat
// cache an earlier process saved, one write call, and the store's close.
// A write neither reads nor saves the stat cache, so the project's size
// costs nothing (ADR 0087).
func BenchmarkFirstWriteOfAProcess(b *testing.B) {
	for _, n := range sizes[:2] {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			st, _, root := benchProject(b, n)
			if err := st.Close(); err != nil {
				b.Fatal(err)
			}
			file := filepath.Join(b.TempDir(), "s.jsonl")
			target := filepath.Join(root, "d0000", "f000.go")
			i := 0
			for b.Loop() {
				i++
				s := Open(st.Dir(), Limits{})
				m := s.Recorder("bench", file, root).Before(context.Background(), Call{ToolCallID: "c", Tool: "write", Entry: "e", Paths: []string{target}})
				os.WriteFile(target, []byte(fmt.Sprintf("package x // %d\n", i)), 0o644)
				if res := m.After(context.Background()); len(res.Changes) != 1 {
					b.Fatalf("changes: %+v", res)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBashCall is the checkpoint of one bash call that changes one
// file: two stat walks, reading only the changed file.
func BenchmarkBashCall(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			_, rec, root := benchProject(b, n)
			target := filepath.Join(root, "d0000", "f001.go")
			i := 0
			for b.Loop() {
				i++
				m := rec.Before(context.Background(), Call{ToolCallID: "c", Tool: "bash", Entry: "e"})
				os.WriteFile(target, []byte(fmt.Sprintf("package x // %d\n", i)), 0o644)
				if res := m.After(context.Background()); len(res.Changes) != 1 {
					b.Fatalf("changes: %+v", res)
				}
			}
		})
	}
}

// BenchmarkUndo100 undoes a turn that changed 100 files (and redoes it,
// untimed, for the next round).
func BenchmarkUndo100(b *testing.B) {
	st, rec, root := benchProject(b, 1000)
	m := rec.Before(context.Background(), Call{ToolCallID: "c", Tool: "bash", Entry: "e1"})
	for i := range 100 {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("d%04d", i/100), fmt.Sprintf("f%03d.go", i%100)), []byte(fmt.Sprintf("changed %d\n", i)), 0o644)
	}
	if res := m.After(context.Background()); len(res.Changes) != 100 {
		b.Fatalf("changes: %d", len(res.Changes))
	}
	info := SessionInfo{ID: "bench", Order: []string{"e1"}}
	all := make([]int, 100)
	for i := range all {
		all[i] = i + 1
	}
	for b.Loop() {
		if _, err := st.Undo(context.Background(), info, Undo{To: "e1"}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := st.Undo(context.Background(), info, Undo{Changes: all, Redo: true}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkStorage1000 records 1,000 changes of a typical edit (a line
// changed in a 4 KiB file of source-like text, which compresses about as
// source does) and reports the bytes the store grew
// by, per 1,000 changes.
func BenchmarkStorage1000(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		st, rec, root := benchProject(b, 100)
		before, _ := st.Usage()
		src := sourceLike(4096)
		b.StartTimer()
		for i := range 1000 {
			target := filepath.Join(root, "d0000", fmt.Sprintf("f%03d.go", i%100))
			m := rec.Before(context.Background(), Call{ToolCallID: "c", Tool: "edit", Entry: "e", Paths: []string{target}})
			os.WriteFile(target, []byte(fmt.Sprintf("// edit %d\n%s", i, src)), 0o644)
			m.After(context.Background())
		}
		b.StopTimer()
		after, _ := st.Usage()
		b.ReportMetric(float64(after-before), "bytes/1000changes")
		b.StartTimer()
	}
}

// sourceLike is n bytes of text with the variety of source code (words
// from a small vocabulary, numbers, indentation), deterministically.
func sourceLike(n int) string {
	words := []string{"func", "return", "if", "err", "nil", "ctx", "value", "range", "for", ":=", "{", "}", "(", ")", "string", "int", "case", "switch", "fmt.Errorf", "len", "append", "map", "struct", "type"}
	var b strings.Builder
	x := uint32(2463534242)
	for b.Len() < n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		if x%7 == 0 {
			b.WriteString("\n\t")
		}
		b.WriteString(words[x%uint32(len(words))])
		if x%5 == 0 {
			fmt.Fprintf(&b, "%d", x%1000)
		}
		b.WriteByte(' ')
	}
	return b.String()
}
