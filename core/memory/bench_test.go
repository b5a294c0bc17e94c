package memory

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkSave500Entries saves a 500-entry memory of about 32 KiB:
// normalisation, projection, encoding and the compare-and-swap
// transaction on a real SQLite file. Target: ≤ 2 ms/op.
func BenchmarkSave500Entries(b *testing.B) {
	ctx := context.Background()
	svc, _, _ := newServiceB(b)
	entries := make([]Entry, 500)
	for i := range entries {
		entries[i] = Entry{ID: fmt.Sprint("e", i), Title: fmt.Sprint("note ", i), Content: strings.Repeat("x", 50)}
	}
	if n := len(Project(entries)); n > LimitBytes || n < LimitBytes-2000 {
		b.Fatalf("projection is %d bytes; want about 32 KiB", n)
	}
	m, err := svc.Load(ctx, "/bench")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m, err = svc.Save(ctx, m, entries)
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode500Entries decodes a stored 500-entry value of about
// 32 KiB: what a runtime pays when memory changed since its last look.
func BenchmarkDecode500Entries(b *testing.B) {
	entries := make([]Entry, 500)
	for i := range entries {
		entries[i] = Entry{ID: fmt.Sprint("e", i), Title: fmt.Sprint("note ", i), Content: strings.Repeat("x", 50)}
	}
	data, err := Encode(Value{Entries: entries})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
