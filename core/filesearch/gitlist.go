package filesearch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
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
// base is another file), the user's core.excludesFile, and submodules'
// own indexes. Tracked files come from one run and untracked ones from a
// second: `ls-files --cached --others` prints the untracked files first,
// after walking the whole work tree, while `--cached` alone prints from
// the index in a few milliseconds.

// trackedArgs list the index: -t tags skip-worktree entries (S), which
// are not in the work tree; -s gives each entry's mode (submodules that
// are not checked out stay gitlinks, mode 160000) and stage (a conflicted
// file is listed once per stage); submodules that are checked out are
// listed file by file.
var trackedArgs = []string{"ls-files", "-z", "--cached", "-t", "-s", "--recurse-submodules"}

// othersArgs list what git neither tracks nor ignores, with every
// exclude source git knows (.gitignore files above and below, info/exclude,
// core.excludesFile).
var othersArgs = []string{"ls-files", "-z", "--others", "--exclude-standard"}

// maxGitRecord bounds one NUL-terminated record of git's output; a path
// is at most a few KiB on every system git runs on.
const maxGitRecord = 64 << 10

// repoInfo is what git says about the folder a list is made for.
type repoInfo struct {
	index  string // the index file, whose size and time say when to list again
	prefix string // the folder's path in the repository: "" at its top, else ending in "/"
	top    string // the work tree's top folder
}

// errNotRepo says git found no work tree at or above the folder.
var errNotRepo = errors.New("not in a git work tree")

// gitRepo asks git whether root is in a work tree, where its index is and
// root's path in it.
func gitRepo(ctx context.Context, g Git, root string, lim Limits) (repoInfo, error) {
	var lines []string
	err := runGit(ctx, g, root, lim, []string{"rev-parse", "--is-inside-work-tree", "--git-path", "index", "--show-prefix", "--show-toplevel"},
		'\n', func(rec []byte) bool {
			lines = append(lines, string(rec))
			return len(lines) < 4
		})
	var ge *gitError
	if (errors.As(err, &ge) && strings.Contains(ge.stderr, "not a git repository")) || (len(lines) > 0 && lines[0] == "false") {
		return repoInfo{}, errNotRepo // outside a repository, or inside a .git folder or a bare one
	}
	if err != nil {
		return repoInfo{}, err
	}
	if len(lines) != 4 {
		return repoInfo{}, fmt.Errorf("git rev-parse printed %d lines, not 4", len(lines))
	}
	if lines[0] != "true" {
		return repoInfo{}, fmt.Errorf("git rev-parse printed %q, not whether this is a work tree", trim([]byte(lines[0])))
	}
	idx := lines[1]
	if !filepath.IsAbs(idx) {
		idx = filepath.Join(root, idx)
	}
	return repoInfo{index: idx, prefix: lines[2], top: lines[3]}, nil
}

// gitTracked lists the files git tracks under root that are in the work
// tree, in index order, and reports whether it stopped at a limit.
func gitTracked(ctx context.Context, g Git, root string, lim Limits) (*names, bool, error) {
	n := &names{}
	full := false
	var last []byte
	var perr error
	err := runGit(ctx, g, root, lim, trackedArgs, 0, func(rec []byte) bool {
		p, ok, err := parseStaged(rec)
		if err != nil {
			perr = err
			return false
		}
		if !ok || bytes.Equal(p, last) || !cleanPath(p) {
			return true // not in the work tree, another stage, or never offered
		}
		if !n.add(p, lim) {
			full = true
			return false
		}
		last = n.buf[len(n.buf)-len(p):]
		return true
	})
	if perr != nil {
		return nil, false, perr
	}
	return n, full, err
}

// gitOthers lists the files under root that git neither tracks nor
// ignores, at most room of them.
func gitOthers(ctx context.Context, g Git, root string, lim Limits, room int) (*names, bool, error) {
	n := &names{}
	full := false
	lim.MaxFiles = room
	err := runGit(ctx, g, root, lim, othersArgs, 0, func(rec []byte) bool {
		if !cleanPath(rec) {
			return true // a nested repository ("sub/"), a name never offered
		}
		if !n.add(rec, lim) {
			full = true
			return false
		}
		return true
	})
	return n, full, err
}

// parseStaged reads one record of `ls-files -t -s`: the tag, the mode,
// the object name and the stage, then a tab and the path. ok is false for
// entries that are not files in the work tree: skip-worktree entries
// (sparse checkouts), submodules not checked out, sparse directories.
func parseStaged(rec []byte) (path []byte, ok bool, err error) {
	head, path, found := bytes.Cut(rec, []byte{'\t'})
	fields := bytes.Fields(head)
	if !found || len(fields) != 4 {
		return nil, false, fmt.Errorf("git ls-files printed %q, not a tagged index entry", trim(rec))
	}
	mode, merr := strconv.ParseUint(string(fields[1]), 8, 32)
	if merr != nil {
		return nil, false, fmt.Errorf("git ls-files printed the mode %q", trim(fields[1]))
	}
	if string(fields[0]) == "S" {
		return path, false, nil
	}
	t := mode & modeTypeMask
	return path, t == modeRegular || t == modeSymlink, nil
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
	msg := e.err.Error()
	for l := range strings.Lines(e.stderr) {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(l, "fatal: "), "error: "))
		if l != "" && !strings.HasPrefix(l, "hint:") {
			msg = l
			break
		}
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
	// A killed git's children (a submodule's ls-files) may keep the
	// pipe open: closing it is what unblocks the read.
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
