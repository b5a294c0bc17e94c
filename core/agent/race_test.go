//go:build linux

package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pi-tui/pi-tui/core/confine"
)

// raceCalls is how many tool calls race a link swap. The run was
// 10,000; PI_TUI_RACE_CALLS sets it for a longer run.
func raceCalls(t *testing.T) int {
	if s := os.Getenv("PI_TUI_RACE_CALLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("PI_TUI_RACE_CALLS=%q: %v", s, err)
		}
		return n
	}
	return 2000
}

// TestNoGapBetweenCheckAndUse runs file tools on race/… while another
// goroutine keeps exchanging the directory race/ with a link to a folder
// outside the project (renameat2 RENAME_EXCHANGE). A tool may fail, but
// nothing outside may be read or written.
func TestNoGapBetweenCheckAndUse(t *testing.T) {
	root := tempRoot(t)
	outside := tempRoot(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("TOPSECRET\n"), 0o644))
	must(os.WriteFile(filepath.Join(outside, "e.txt"), []byte("old\n"), 0o644))
	must(os.WriteFile(filepath.Join(outside, "outside-only.txt"), []byte("x\n"), 0o644))
	race := filepath.Join(root, "race")
	must(os.Mkdir(race, 0o755))
	must(os.WriteFile(filepath.Join(race, "secret"), []byte("inside\n"), 0o644))
	must(os.WriteFile(filepath.Join(race, "e.txt"), []byte("old\n"), 0o644))
	rel, _ := filepath.Rel(root, outside)
	swap := filepath.Join(root, "swap")
	must(os.Symlink(rel, swap))

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			unix.Renameat2(unix.AT_FDCWD, race, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE)
		}
	}()
	ctx := context.Background()
	n := raceCalls(t)
	var leaks []string
	for i := 0; i < n && len(leaks) < 10; i++ {
		var res ToolResult
		var what string
		switch i % 8 {
		case 0, 1:
			what = "write"
			res = runTool(ctx, root, call("write", map[string]string{"path": fmt.Sprintf("race/f%d", i), "content": "x"}))
		case 2:
			what = "read"
			res = runTool(ctx, root, call("read", map[string]string{"path": "race/secret"}))
		case 3:
			what = "edit"
			res = runTool(ctx, root, call("edit", map[string]string{"path": "race/e.txt", "oldText": "old", "newText": "old"}))
		case 4:
			what = "ls"
			res = runTool(ctx, root, call("ls", map[string]string{"path": "race"}))
		case 5:
			what = "grep"
			res = runTool(ctx, root, call("grep", map[string]string{"pattern": "SECRET|x", "path": "race"}))
		case 6:
			what = "find"
			res = runTool(ctx, root, call("find", map[string]string{"pattern": "*", "path": "race"}))
		case 7:
			what = "preview"
			data, _ := confine.ReadPreview(root, "race/secret", 1024)
			res.Text = string(data)
		}
		if strings.Contains(res.Text, "TOPSECRET") || strings.Contains(res.Text, "outside-only") {
			leaks = append(leaks, fmt.Sprintf("call %d (%s) read outside: %q", i, what, res.Text))
		}
	}
	close(stop)
	wg.Wait()
	for _, l := range leaks {
		t.Error(l)
	}
	ents, _ := os.ReadDir(outside)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{"e.txt", "outside-only.txt", "secret"}; !slices.Equal(names, want) {
		t.Errorf("after %d calls the folder outside holds %v, want %v", n, names, want)
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "e.txt")); string(data) != "old\n" {
		t.Errorf("a file outside was edited: %q", data)
	}
}
