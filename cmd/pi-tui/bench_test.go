package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/store"
)

// BenchmarkProjectsListJSON5000 times the whole process: start, open the
// store, list 5,000 projects (stat-ing each root) and print JSON.
// Target: ≤ 100 ms/op.
func BenchmarkProjectsListJSON5000(b *testing.B) {
	bin := buildBinary(b)
	data := b.TempDir()
	roots := b.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(data, store.FileName), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 5000 {
		root := filepath.Join(roots, fmt.Sprint("p", i))
		if i%10 != 0 { // every tenth folder is missing
			os.Mkdir(root, 0o755)
		}
		if _, _, err := st.InsertProject(ctx, store.ProjectRow{ID: fmt.Sprintf("p%08x", i), Name: fmt.Sprint("project ", i), Root: root}); err != nil {
			b.Fatal(err)
		}
	}
	st.Close()
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(bin, "projects", "list", "--json", "--data-dir", data)
		cmd.Env = []string{"HOME=" + roots}
		out, err := cmd.Output()
		if err != nil || len(out) < 5000*100 {
			b.Fatalf("list: %v (%d bytes)", err, len(out))
		}
	}
}
