package approval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
)

func writeArgs(path, content string) events.Approval {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return events.Approval{Tool: "write", Path: path, Args: args}
}

// TestDiffForReadsSafely: a write's diff is computed from a bounded,
// non-blocking read, and always shows the whole new content when it
// cannot compare.
func TestDiffForReadsSafely(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "old.txt"), []byte("a\nb\nc\n"), 0o644)
	os.WriteFile(filepath.Join(root, "big.txt"), []byte(strings.Repeat("x", previewLimit+10)), 0o644)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("line\n", 500)
	for _, c := range []struct {
		path, content string
		want          []string
	}{
		{"old.txt", "a\nB\nc\n", []string{"@@ -1,3 +1,3 @@\n1 1 │   a\n2   │ - b\n  2 │ + B\n3 3 │   c\n"}},
		{"new.txt", long, []string{"(new file, 2,500 bytes)", "      1 │ + line\n", "    500 │ + line\n"}},
		{"pipe", "x\n", []string{"(not a regular file)", "  1 │ + x\n"}},
		{"big.txt", "y\n", []string{"over 1 MiB", "  1 │ + y\n"}},
		{"../outside.txt", "x\n", []string{"the tool will refuse it"}},
	} {
		got := diffFor(root, writeArgs(c.path, c.content)).String()
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("diff of %s lacks %q:\n%.300s", c.path, w, got)
			}
		}
	}
	// A whole rewrite shows every line it removes and adds.
	huge := strings.Repeat("o\n", 3000)
	os.WriteFile(filepath.Join(root, "wide.txt"), []byte(huge), 0o644)
	got := diffFor(root, writeArgs("wide.txt", strings.Repeat("n\n", 3000))).String()
	if strings.Count(got, "│ + n\n") != 3000 || strings.Count(got, "│ - o\n") != 3000 {
		t.Errorf("a large rewrite hides its content: %.200s", got)
	}
}
