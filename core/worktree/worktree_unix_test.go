//go:build unix

package worktree_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// Untracked files the agent (or a repository) leaves in a worktree cannot
// hang or exhaust the status and the diff: a link to a device, a FIFO, a
// link out of the worktree are skipped, and a huge file is read in part.
func TestOddUntrackedFilesAreSkipped(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	s, w := r.newSession()
	os.Symlink("/dev/zero", filepath.Join(w.Root, "zero"))
	os.Symlink("/etc/passwd", filepath.Join(w.Root, "outside"))
	if err := syscall.Mkfifo(filepath.Join(w.Root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	worktreetest.Write(t, w.Root, "big.txt", strings.Repeat("line\n", 1<<20))
	st, _, err := r.svc.Status(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if st.Insertions > maxLines {
		t.Errorf("counted %d lines", st.Insertions)
	}
	d, err := r.svc.Diff(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(d, "root:") {
		t.Error("the diff shows a file outside the worktree")
	}
}

// maxLines is what the status may count of big.txt: its first MiB.
const maxLines = (1 << 20) / len("line\n")
