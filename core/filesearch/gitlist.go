package filesearch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/git"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Git starts git commands hardened against the repository's own
// configuration (no fsmonitor, hooks or pager; a clean environment);
// core/git's *Git is one. Only Command is needed: git's output is parsed
// as it arrives, so a huge listing never sits in memory twice and a
// listing cut at Limits.MaxFiles stops git at once.
type Git interface {
	Command(ctx context.Context, dir string, args ...string) (*exec.Cmd, error)
}

// GitFinder locates git once, off the UI goroutine; an error means the
// lists are made without it.
type GitFinder func(context.Context) (Git, error)

// Why git and not only the index file: git alone knows every index
// format and extension (a split index holds only the latest changes; its
// base is another file) and the user's core.excludesFile. Tracked files
// come from one run and untracked ones from a second: `ls-files --cached
// --others` prints the untracked files first, after walking the whole
// work tree, while `--cached` alone prints from the index in a few
// milliseconds.
//
// Submodules: a submodule's own config is another repository's, so git is
// never asked to recurse into one (core/git's overrides cover the
// repository it runs in); each checked-out submodule is listed by a git
// run of its own, in its folder, and its paths get the submodule's path
// in front.

// trackedArgs list the index: -t tags skip-worktree entries (S), which
// are not in the work tree; -s gives each entry's mode (a submodule is a
// gitlink, mode 160000) and stage (a conflicted file is listed once per
// stage).
var trackedArgs = []string{"ls-files", "-z", "--cached", "-t", "-s"}

// othersArgs list what git neither tracks nor ignores, with every
// exclude source git knows (.gitignore files above and below, info/exclude,
// core.excludesFile).
var othersArgs = []string{"ls-files", "-z", "--others", "--exclude-standard"}

// maxGitRecord bounds one NUL-terminated record of git's output; a path
// is at most a few KiB on every system git runs on.
const maxGitRecord = 64 << 10

// maxSubmodules bounds the submodules listed, nested ones included.
const maxSubmodules = 256

// modeGitlink is a submodule's mode in the index.
const modeGitlink = 0o160000

// repoInfo is what git says about the folder a list is made for.
type repoInfo struct {
	index  string // the index file, whose size and time say when to list again
	prefix string // the folder's path in the repository: "" at its top, else ending in "/"
}

// errNotRepo says git found no work tree at or above the folder.
var errNotRepo = errors.New("not in a git work tree")

// gitRepo asks git whether root is in a work tree, where its index is and
// root's path in it.
func gitRepo(ctx context.Context, g Git, root string, lim Limits) (repoInfo, error) {
	var lines []string
	err := runGit(ctx, g, root, lim, []string{"rev-parse", "--is-inside-work-tree", "--git-path", "index", "--show-prefix"},
		'\n', func(rec []byte) bool {
			lines = append(lines, string(rec))
			return len(lines) < 3
		})
	var ge *gitError
	if (errors.As(err, &ge) && strings.Contains(ge.stderr, "not a git repository")) || (len(lines) > 0 && lines[0] == "false") {
		return repoInfo{}, errNotRepo // outside a repository, or inside a .git folder or a bare one
	}
	if err != nil {
		return repoInfo{}, err
	}
	if len(lines) != 3 {
		return repoInfo{}, fmt.Errorf("git rev-parse printed %d lines, not 3", len(lines))
	}
	if lines[0] != "true" {
		return repoInfo{}, fmt.Errorf("git rev-parse printed %q, not whether this is a work tree", trim([]byte(lines[0])))
	}
	idx := lines[1]
	if !filepath.IsAbs(idx) {
		idx = filepath.Join(root, idx)
	}
	return repoInfo{index: idx, prefix: lines[2]}, nil
}

// tracked is what the first step found.
type tracked struct {
	names *names
	subs  []string // the checked-out submodules listed, by path (nested ones too)
	full  bool     // a limit was reached
	warn  string   // submodules that could not be listed
}

// gitTracked lists the files git tracks under root that are in the work
// tree, in index order, then those of each checked-out submodule. first,
// when not nil, gets the paths listed so far once there are
// lim.FirstBatch of them, while git goes on. hint is the bytes the paths
// likely take (half the index file's size), to grow the buffer once.
func gitTracked(ctx context.Context, g Git, root string, lim Limits, first func([]string), hint int64) (tracked, error) {
	n := &names{first: first, firstAt: lim.FirstBatch, buf: make([]byte, 0, min(hint, lim.MaxBytes, 64<<20))}
	t := tracked{names: n}
	links, full, err := trackedIn(ctx, g, root, "", lim, t.names)
	if err != nil {
		return t, err
	}
	t.full = full
	r, err := os.OpenRoot(root)
	if err != nil {
		return t, fmt.Errorf("cannot open the project folder: %v", fsutil.PlainError(err))
	}
	defer r.Close()
	var failed []string
	for len(links) > 0 && !t.full {
		sm := links[0]
		links = links[1:]
		if !checkedOut(r, sm) {
			continue
		}
		if len(t.subs) == maxSubmodules {
			failed = append(failed, fmt.Sprintf("more than %d submodules", maxSubmodules))
			break
		}
		t.subs = append(t.subs, sm)
		inner, full, err := trackedIn(ctx, g, filepath.Join(root, filepath.FromSlash(sm)), sm+"/", lim, t.names)
		if err != nil {
			if ctx.Err() != nil {
				return t, ctx.Err()
			}
			failed = append(failed, sm+" ("+err.Error()+")")
			continue
		}
		t.full = full
		links = append(links, inner...)
	}
	if len(failed) > 0 {
		t.warn = "the files of these submodules are not listed: " + strings.Join(failed, ", ")
	}
	return t, nil
}

// checkedOut reports whether submodule path sm is a folder of the project
// (reached without leaving it) holding a .git: a submodule that is not
// checked out is an empty folder.
func checkedOut(r *os.Root, sm string) bool {
	fi, err := r.Lstat(sm)
	if err != nil || !fi.IsDir() {
		return false
	}
	_, err = r.Lstat(sm + "/.git")
	return err == nil
}

// trackedIn adds to n, after prefix, the files git tracks in dir that are
// in the work tree, and returns the submodules (their paths with prefix)
// and whether a limit was reached.
func trackedIn(ctx context.Context, g Git, dir, prefix string, lim Limits, n *names) (links []string, full bool, err error) {
	var last []byte
	var perr error
	err = runGit(ctx, g, dir, lim, trackedArgs, 0, func(rec []byte) bool {
		p, mode, inTree, err := parseStaged(rec)
		if err != nil {
			perr = err
			return false
		}
		switch {
		case !inTree || bytes.Equal(p, last) || !cleanPath(p):
			return true // not in the work tree, another stage, or never offered
		case mode&modeTypeMask == modeGitlink:
			if len(links) < maxSubmodules {
				links = append(links, prefix+string(p))
			}
			return true
		case mode&modeTypeMask != modeRegular && mode&modeTypeMask != modeSymlink:
			return true
		}
		if !n.add(prefix, p, lim) {
			full = true
			return false
		}
		last = append(last[:0], p...) // p is git's output buffer, reused by the next read
		return true
	})
	if perr != nil {
		return nil, false, perr
	}
	return links, full, err
}

// gitOthers lists the files under root, and in the submodules subs, that
// git neither tracks nor ignores, at most room of them.
func gitOthers(ctx context.Context, g Git, root string, subs []string, lim Limits, room int) (*names, bool, error) {
	n := &names{}
	lim.MaxFiles = room
	full, err := othersIn(ctx, g, root, "", lim, n)
	if err != nil {
		return nil, false, err
	}
	for _, sm := range subs {
		if full {
			break
		}
		// A submodule that cannot be listed leaves its untracked files out.
		full, _ = othersIn(ctx, g, filepath.Join(root, filepath.FromSlash(sm)), sm+"/", lim, n)
	}
	return n, full, ctx.Err()
}

// othersIn adds to n, after prefix, what git in dir neither tracks nor
// ignores, and reports whether a limit was reached.
func othersIn(ctx context.Context, g Git, dir, prefix string, lim Limits, n *names) (bool, error) {
	full := false
	err := runGit(ctx, g, dir, lim, othersArgs, 0, func(rec []byte) bool {
		if !cleanPath(rec) {
			return true // a nested repository ("sub/"), a name never offered
		}
		if !n.add(prefix, rec, lim) {
			full = true
			return false
		}
		return true
	})
	return full, err
}

// parseStaged reads one record of `ls-files -t -s`: the tag, the mode,
// the object name and the stage, separated by spaces, then a tab and the
// path. inTree is false for skip-worktree entries (tag S: outside a
// sparse checkout). It allocates nothing: it runs once per file.
func parseStaged(rec []byte) (path []byte, mode uint32, inTree bool, err error) {
	head, path, ok := bytes.Cut(rec, []byte{'\t'})
	tag, rest, ok1 := bytes.Cut(head, []byte{' '})
	m, rest, ok2 := bytes.Cut(rest, []byte{' '})
	obj, stage, ok3 := bytes.Cut(rest, []byte{' '})
	if !ok || !ok1 || !ok2 || !ok3 || len(tag) == 0 || len(obj) == 0 || len(stage) == 0 || len(m) == 0 || len(m) > 7 {
		return nil, 0, false, fmt.Errorf("git ls-files printed %q, not a tagged index entry", trim(rec))
	}
	for _, c := range m {
		if c < '0' || c > '7' {
			return nil, 0, false, fmt.Errorf("git ls-files printed the mode %q", trim(m))
		}
		mode = mode<<3 | uint32(c-'0')
	}
	return path, mode, string(tag) != "S", nil
}

// trim shortens bytes of git's output for a message.
func trim(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

// gitError is a git command that failed: what it was asked and the first
// line it said.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := git.FirstLine(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	return "git " + e.args[0] + ": " + msg
}

func (e *gitError) Unwrap() error { return e.err }

// runGit runs git in dir and hands each record of its output (ended by
// sep, which is dropped) to each, as git writes them; each returns false
// to stop, and git is then stopped too. Lim bounds the time git may take;
// a record over maxGitRecord bytes is an error.
func runGit(ctx context.Context, g Git, dir string, lim Limits, args []string, sep byte, each func([]byte) bool) error {
	ctx, cancel := context.WithTimeout(ctx, lim.GitTimeout)
	defer cancel()
	cmd, err := g.Command(ctx, dir, args...)
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr := &headBuffer{max: 4096}
	cmd.Stderr = stderr
	if cmd.WaitDelay == 0 {
		// Children of a killed or finished git may hold stderr open:
		// Wait gives up on them after this.
		cmd.WaitDelay = time.Second
	}
	if err := cmd.Start(); err != nil {
		return &gitError{args: args, err: err}
	}
	// A killed git's children may keep the pipe open: closing it is
	// what unblocks the read.
	stopClose := context.AfterFunc(ctx, func() { stdout.Close() })
	defer stopClose()
	r := bufio.NewReaderSize(stdout, maxGitRecord)
	var readErr error
	stopped := false
	for {
		rec, err := r.ReadSlice(sep)
		if err == nil {
			if !each(rec[:len(rec)-1]) {
				stopped = true
				break
			}
			continue
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			readErr = fmt.Errorf("git %s printed a record over %d bytes", args[0], maxGitRecord)
		case errors.Is(err, io.EOF) && len(rec) > 0:
			readErr = fmt.Errorf("git %s's output ends in the middle of a record", args[0])
		case !errors.Is(err, io.EOF):
			readErr = err
		}
		break
	}
	if stopped || readErr != nil {
		// Stop git: it may be blocked writing what is no longer read.
		cancel()
		stdout.Close()
	}
	werr := cmd.Wait()
	switch {
	case stopped:
		return nil
	case ctx.Err() == context.DeadlineExceeded:
		return &gitError{args: args, err: fmt.Errorf("gave up after %s", lim.GitTimeout)}
	case readErr != nil:
		return readErr
	case werr != nil:
		return &gitError{args: args, stderr: stderr.String(), err: werr}
	}
	return nil
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	bytes.Buffer
	max int
}

func (b *headBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// defaultGitTimeout bounds one git listing: a cold cache on a slow disk
// can take seconds; a git that hangs must not keep the menu waiting.
const defaultGitTimeout = 30 * time.Second
