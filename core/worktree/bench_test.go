package worktree_test

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkNewSession10kFiles creates a worktree session (git worktree add
// included) on a repository of 10,000 files; the target is ≤ 1 s.
func BenchmarkNewSession10kFiles(b *testing.B) {
	files := make(map[string]string, 10000)
	for i := range 10000 {
		files[fmt.Sprintf("pkg%03d/file%04d.go", i/100, i)] = fmt.Sprintf("package pkg\n\n// File %d.\n", i)
	}
	r := newRig(b, files)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := r.svc.NewSession(context.Background(), r.sm, r.pid, "", ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStatuses20 reads the statuses of 20 worktree sessions with
// changes, uncached (what the session list does when it opens); the
// target is ≤ 100 ms.
func BenchmarkStatuses20(b *testing.B) {
	files := map[string]string{}
	for i := range 200 {
		files[fmt.Sprintf("src/f%03d.go", i)] = "package src\n"
	}
	r := newRig(b, files)
	for i := range 20 {
		_, w := r.newSession()
		writeFile(b, w.Root, fmt.Sprintf("src/f%03d.go", i), "package src\n// changed\n")
	}
	list, _ := r.sm.List(context.Background(), r.pid)
	wts := r.svc.Of(context.Background(), r.pid, list)
	b.ReportAllocs()
	for b.Loop() {
		if got := r.svc.Statuses(context.Background(), wts.Bound, 0); len(got) != 20 {
			b.Fatalf("%d statuses", len(got))
		}
	}
}
