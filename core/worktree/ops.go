package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/pi-tui/pi-tui/core/git"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Checkout is the git checkout holding a project root.
type Checkout struct {
	Top    string // the checkout's top folder
	Prefix string // the project root's path inside it ("" at the top)
	Branch string // the branch checked out ("" on a detached HEAD)
}

// Checkout finds the git checkout of dir; a folder that is not in one
// gets a sentence that says so.
func (g *Git) Checkout(ctx context.Context, dir string) (Checkout, error) {
	top, prefix, err := g.topAndPrefix(ctx, dir)
	if err != nil {
		return Checkout{}, fmt.Errorf("%s is not a git checkout, so its sessions cannot have worktrees (git init and a first commit make it one)", dir)
	}
	c := Checkout{Top: top, Prefix: prefix}
	if b, err := g.run(ctx, dir, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
		c.Branch = strings.TrimSpace(b)
	}
	if _, err := g.run(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return Checkout{}, fmt.Errorf("%s has no commit yet; commit something first, then a worktree can branch from it", dir)
	}
	return c, nil
}

// topAndPrefix are the top folder of dir's checkout and dir's path
// inside it (without a final "/"). One rev-parse asks for both; git ends
// each answer with a line break (an empty prefix is a line of its own),
// so an answer with exactly two breaks holds no break of its own and
// splits cleanly. A folder's name may hold a line break, and then the
// two are asked one at a time, each answer's last break cut.
func (g *Git) topAndPrefix(ctx context.Context, dir string) (top, prefix string, err error) {
	out, err := g.run(ctx, dir, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		return "", "", err
	}
	if strings.Count(out, "\n") == 2 {
		top, prefix, _ = strings.Cut(strings.TrimSuffix(out, "\n"), "\n")
		return top, strings.TrimSuffix(prefix, "/"), nil
	}
	if out, err = g.run(ctx, dir, "rev-parse", "--show-toplevel"); err != nil {
		return "", "", err
	}
	top = strings.TrimSuffix(out, "\n")
	if out, err = g.run(ctx, dir, "rev-parse", "--show-prefix"); err != nil {
		return "", "", err
	}
	return top, strings.TrimSuffix(strings.TrimSuffix(out, "\n"), "/"), nil
}

// Add makes a worktree at dir on a new branch from base (a branch of the
// checkout; "" means the branch checked out there) and returns the record
// a session keeps.
func (g *Git) Add(ctx context.Context, projectRoot, dir, branch, base string) (sessions.Worktree, error) {
	c, err := g.Checkout(ctx, projectRoot)
	if err != nil {
		return sessions.Worktree{}, err
	}
	if base == "" {
		if c.Branch == "" {
			return sessions.Worktree{}, fmt.Errorf("%s is on a detached HEAD; choose the branch the worktree starts from (and merges into)", c.Top)
		}
		base = c.Branch
	}
	if _, err := g.run(ctx, c.Top, "rev-parse", "--verify", "--quiet", "refs/heads/"+base); err != nil {
		return sessions.Worktree{}, fmt.Errorf("%s has no branch %q to start a worktree from", c.Top, base)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return sessions.Worktree{}, fmt.Errorf("make the worktrees folder: %w", err)
	}
	_, existed := g.run(ctx, c.Top, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	if _, err := g.run(ctx, c.Top, "worktree", "add", "--quiet", "-b", branch, dir, base); err != nil {
		// git removes the folder of a checkout that failed (a filter it
		// needs was withheld, say) but keeps the new branch: it holds
		// nothing, and goes too.
		if _, now := g.run(ctx, c.Top, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); existed != nil && now == nil {
			_ = g.Prune(ctx, c.Top)
			_, _ = g.run(ctx, c.Top, "branch", "-D", branch)
		}
		if ge := (*GitError)(nil); errors.As(err, &ge) && len(ge.Withheld) > 0 {
			return sessions.Worktree{}, fmt.Errorf("%s cannot be checked out into a worktree (%s); nothing was made: %s",
				c.Top, git.FirstLine(ge.Stderr), git.WithheldSentence(ge.Withheld))
		}
		return sessions.Worktree{}, err
	}
	root := dir
	if c.Prefix != "" {
		root = filepath.Join(dir, filepath.FromSlash(c.Prefix))
	}
	return sessions.Worktree{Kind: sessions.KindWorktree, Root: root, Dir: dir, Branch: branch, Base: base, Main: c.Top}, nil
}

// Status is what the session list shows of a worktree.
type Status struct {
	Branch string
	Base   string
	// Missing is set when the worktree folder is gone (deleted by hand);
	// Fix then says in one line what to do.
	Missing bool
	Fix     string
	// Changed are the uncommitted paths (untracked ones too).
	Changed []string
	// Files, Insertions, Deletions are the diff stat of the worktree
	// (commits and uncommitted changes) against where it left Base.
	Files, Insertions, Deletions int
	// Ahead counts the branch's commits its base lacks (read for one
	// session's dialogs, not for the list: -1 when not read).
	Ahead int
}

// Dirty reports uncommitted changes.
func (s Status) Dirty() bool { return len(s.Changed) > 0 }

// Stat is the diff stat as the list shows it: "3 files +10 -2".
func (s Status) Stat() string {
	if s.Files == 0 {
		return "no changes"
	}
	noun := "files"
	if s.Files == 1 {
		noun = "file"
	}
	return fmt.Sprintf("%d %s +%d -%d", s.Files, noun, s.Insertions, s.Deletions)
}

// missingFix is the one-line fix for a worktree folder deleted by hand.
func missingFix(w sessions.Worktree) string {
	return fmt.Sprintf("the worktree folder is gone; its branch %s keeps what was committed: restore it with git -C %s worktree add %s %s, or discard it",
		w.Branch, w.Main, w.Dir, w.Branch)
}

// MissingError is returned where a missing worktree stops work.
type MissingError struct{ W sessions.Worktree }

func (e *MissingError) Error() string { return missingFix(e.W) }

// present checks the worktree folder; a vanished one is pruned from git's
// list so its branch can be checked out again.
func (g *Git) present(ctx context.Context, w sessions.Worktree) error {
	if fi, err := os.Stat(w.Dir); err == nil && fi.IsDir() {
		return nil
	}
	_ = g.Prune(ctx, w.Main)
	return &MissingError{W: w}
}

// Prune makes git forget worktrees whose folders were deleted by hand.
func (g *Git) Prune(ctx context.Context, main string) error {
	_, err := g.run(ctx, main, "worktree", "prune")
	return err
}

// Status reads a worktree's branch, uncommitted changes and diff stat.
func (g *Git) Status(ctx context.Context, w sessions.Worktree) (Status, error) {
	st := Status{Branch: w.Branch, Base: w.Base, Ahead: -1}
	if err := g.present(ctx, w); err != nil {
		st.Missing, st.Fix = true, err.Error()
		return st, nil
	}
	out, err := g.run(ctx, w.Dir, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=dirty")
	if err != nil {
		return st, err
	}
	st.Changed = porcelainPaths(out)
	stat, err := g.diffSinceFork(ctx, w, "--numstat", "-z")
	if err != nil {
		return st, err
	}
	st.Files, st.Insertions, st.Deletions = numstat(stat)
	untracked := untrackedPaths(out)
	if root, err := os.OpenRoot(w.Dir); err == nil {
		for _, p := range untracked {
			if data, ok := readUntracked(root, p, maxCountBytes+1); ok {
				st.Insertions += countLines(data)
			}
		}
		root.Close()
	}
	st.Files += len(untracked)
	return st, nil
}

// maxCountBytes bounds what the status reads of one untracked file to
// count its lines (a build output of gigabytes counts as its first part).
const maxCountBytes = 1 << 20

// countLines counts a file's lines as git's diff stat does: a last line
// without a line break is a line too. data holds at most maxCountBytes+1
// bytes of the file; past maxCountBytes the file was cut, and its cut last
// line is not counted.
func countLines(data []byte) int {
	if len(data) > maxCountBytes {
		data = data[:maxCountBytes]
		return bytes.Count(data, []byte("\n"))
	}
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// readUntracked reads at most limit bytes of an untracked file inside the
// worktree: only a regular file, opened through root (a link cannot lead
// out of the worktree), without blocking (a FIFO or a device, even behind
// a link, is skipped).
func readUntracked(root *os.Root, p string, limit int64) ([]byte, bool) {
	if fi, err := root.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, err := fsutil.ReadHeadIn(root, p, limit)
	return data, err == nil
}

// diffSinceFork runs git diff of the working tree against where the
// branch left its base: one process where git knows --merge-base (2.30),
// two elsewhere. The session list runs it for every worktree session.
// No external diff, no textconv (programs a repository's config names),
// and a submodule as its commits only.
func (g *Git) diffSinceFork(ctx context.Context, w sessions.Worktree, args ...string) (string, error) {
	args = append([]string{"--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty", "--submodule=short"}, args...)
	if g.atLeast(2, 30) {
		return g.run(ctx, w.Dir, append(append([]string{"diff"}, args...), "--merge-base", "refs/heads/"+w.Base)...)
	}
	fork, err := g.forkPoint(ctx, w)
	if err != nil {
		return "", err
	}
	return g.run(ctx, w.Dir, append(append([]string{"diff"}, args...), fork)...)
}

// Ahead counts the commits of the branch that its base lacks.
func (g *Git) Ahead(ctx context.Context, w sessions.Worktree) (int, error) {
	out, err := g.run(ctx, w.Main, "rev-list", "--count", "refs/heads/"+w.Base+"..refs/heads/"+w.Branch)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// forkPoint is where the branch left its base (the merge base).
func (g *Git) forkPoint(ctx context.Context, w sessions.Worktree) (string, error) {
	out, err := g.run(ctx, w.Dir, "merge-base", "refs/heads/"+w.Base, "HEAD")
	if err != nil {
		return "", fmt.Errorf("compare %s with %s: %w", w.Branch, w.Base, err)
	}
	return strings.TrimSpace(out), nil
}

// porcelainPaths lists the paths of `git status --porcelain -z`.
func porcelainPaths(out string) []string {
	var paths []string
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		paths = append(paths, f[3:])
		if f[0] == 'R' || f[0] == 'C' {
			i++ // the source of a rename follows
		}
	}
	return paths
}

func untrackedPaths(out string) []string {
	var paths []string
	for _, f := range strings.Split(out, "\x00") {
		if strings.HasPrefix(f, "?? ") {
			paths = append(paths, f[3:])
		}
	}
	return paths
}

// numstat sums `git diff --numstat -z`; binary files count as changed
// files without lines.
func numstat(out string) (files, ins, del int) {
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		parts := strings.SplitN(fields[i], "\t", 3)
		if len(parts) < 3 {
			continue
		}
		files++
		a, _ := strconv.Atoi(parts[0])
		d, _ := strconv.Atoi(parts[1])
		ins, del = ins+a, del+d
		if parts[2] == "" {
			i += 2 // a rename: the old and new paths follow
		}
	}
	return files, ins, del
}

// maxDiff bounds the diff text shown (a generated file can be huge).
const maxDiff = 4 << 20

// Diff returns the worktree's changes against where it left its base, as
// unified diff text: git's for tracked files, and one made here for
// untracked files, which git diff leaves out.
func (g *Git) Diff(ctx context.Context, w sessions.Worktree) (string, error) {
	if err := g.present(ctx, w); err != nil {
		return "", err
	}
	out, err := g.diffSinceFork(ctx, w)
	if err != nil {
		return "", err
	}
	st, err := g.run(ctx, w.Dir, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=dirty")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(out)
	root, err := os.OpenRoot(w.Dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	for _, p := range untrackedPaths(st) {
		if b.Len() > maxDiff {
			break
		}
		data, ok := readUntracked(root, p, int64(maxDiff-b.Len()+1))
		if !ok {
			continue
		}
		if slices.Contains(data[:min(len(data), 8000)], 0) {
			fmt.Fprintf(&b, "Binary file %s (untracked)\n", p)
			continue
		}
		b.WriteString(udiff.Unified("/dev/null", "b/"+p, "", string(data)))
	}
	s := b.String()
	if len(s) > maxDiff {
		s = s[:maxDiff] + "\n… (the diff is longer; see it with git diff in " + w.Dir + ")\n"
	}
	return s, nil
}

// Commit commits everything uncommitted in the worktree (new files too);
// done is false when there was nothing to commit.
func (g *Git) Commit(ctx context.Context, w sessions.Worktree, message string) (done bool, err error) {
	if err := g.present(ctx, w); err != nil {
		return false, err
	}
	out, err := g.run(ctx, w.Dir, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=dirty")
	if err != nil {
		return false, err
	}
	if len(porcelainPaths(out)) == 0 {
		return false, nil
	}
	if strings.TrimSpace(message) == "" {
		return false, errors.New("the commit message is empty")
	}
	if err := g.checkIdentity(ctx, w, w.Dir); err != nil {
		return false, err
	}
	if _, err := g.run(ctx, w.Dir, "add", "--all"); err != nil {
		return false, err
	}
	if _, err := g.run(ctx, w.Dir, "commit", "--quiet", "-m", message); err != nil {
		return false, identityError(w, err)
	}
	return true, nil
}

// MergeResult says what Merge did.
type MergeResult struct {
	Committed   bool   // uncommitted work was committed on the branch first
	FastForward bool   // the base branch moved up to the branch
	Commit      string // the base branch's new commit
}

// ConflictError is a merge that stopped on conflicts; the merge was
// aborted, so the main checkout is as it was.
type ConflictError struct {
	W     sessions.Worktree
	Files []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("merging %s into %s conflicts in %s; nothing was merged (the main checkout is as it was): bring %s into the worktree and resolve there, then merge again",
		e.W.Branch, e.W.Base, strings.Join(e.Files, ", "), e.W.Base)
}

// DirtyMainError refuses a merge that would touch files the main checkout
// has uncommitted changes in.
type DirtyMainError struct {
	W     sessions.Worktree
	Files []string
}

func (e *DirtyMainError) Error() string {
	return fmt.Sprintf("the main checkout %s has uncommitted changes in %s, which the merge would change; nothing was merged: commit or stash them there first",
		e.W.Main, ListSome(e.Files, 5))
}

// mergeable checks, before anything changes, that merging the touched
// paths into the main checkout loses nothing there: no uncommitted change
// in a touched file, no ignored file overwritten or deleted, nothing
// staged when git would refuse for it, and no program needed that the
// repository's config names.
func (g *Git) mergeable(ctx context.Context, w sessions.Worktree, touched []string) error {
	st, err := g.readMain(ctx, w)
	if err != nil {
		return err
	}
	var clash []string
	for _, p := range touched {
		if slices.Contains(st.dirty, p) {
			clash = append(clash, p)
		}
	}
	if len(clash) > 0 {
		return &DirtyMainError{W: w, Files: clash}
	}
	if len(st.ignored) > 0 {
		root, err := os.OpenRoot(w.Main)
		if err != nil {
			return err
		}
		clash = ignoredClash(root, touched, st.ignored)
		root.Close()
		if len(clash) > 0 {
			return &IgnoredMainError{W: w, Files: clash}
		}
	}
	if len(st.staged) > 0 {
		// A fast-forward carries staged changes along; a merge commit is
		// refused by git, with a list that names every staged file as
		// "would be overwritten".
		if _, err := g.run(ctx, w.Main, "merge-base", "--is-ancestor", "refs/heads/"+w.Base, "refs/heads/"+w.Branch); err != nil {
			return &StagedMainError{W: w, Files: st.staged}
		}
	}
	need, files, err := g.programsNeeded(ctx, w, touched)
	if err != nil {
		return err
	}
	if len(need) > 0 {
		return &ProgramMergeError{W: w, Programs: need, Files: files}
	}
	return nil
}

// overwritten reads the files git names in a refusal to merge over local
// changes ("Your local changes to the following files would be
// overwritten by merge:", then one file a line).
func overwritten(err error) []string {
	var ge *GitError
	if !errors.As(err, &ge) {
		return nil
	}
	var files []string
	in := false
	for _, l := range strings.Split(ge.Stderr, "\n") {
		switch {
		case strings.Contains(l, "would be overwritten by merge:"):
			in = true
		case in && strings.HasPrefix(l, "\t") || in && strings.HasPrefix(l, "  "):
			files = append(files, strings.TrimSpace(l))
		default:
			in = false
		}
	}
	return files
}

// Merge commits what is uncommitted in the worktree (with message), then
// merges the branch into the base branch in the main checkout: a
// fast-forward when the base has not moved, else a merge commit. A
// conflict is aborted, so nothing is half-done in the main checkout.
func (g *Git) Merge(ctx context.Context, w sessions.Worktree, message string) (MergeResult, error) {
	var res MergeResult
	committed, err := g.Commit(ctx, w, message)
	if err != nil {
		return res, err
	}
	res.Committed = committed
	cur, err := g.run(ctx, w.Main, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil || strings.TrimSpace(cur) != w.Base {
		return res, fmt.Errorf("the main checkout %s is not on %s; switch it there (git switch %s) and merge again; the work is committed on %s",
			w.Main, w.Base, w.Base, w.Branch)
	}
	n, err := g.Ahead(ctx, w)
	if err != nil {
		return res, err
	}
	if n == 0 {
		return res, fmt.Errorf("%s has nothing %s lacks; there is nothing to merge", w.Branch, w.Base)
	}
	touched, err := g.mergeTouched(ctx, w)
	if err != nil {
		return res, err
	}
	if err := g.mergeable(ctx, w, touched); err != nil {
		return res, err
	}
	if _, err := g.run(ctx, w.Main, "-c", noDirectoryRenames, "merge", "--ff", "--no-edit", "-m", "Merge "+w.Branch+": "+message, "refs/heads/"+w.Branch); err != nil {
		if _, merging := g.run(ctx, w.Main, "rev-parse", "--verify", "--quiet", "MERGE_HEAD"); merging == nil {
			files, _ := g.run(ctx, w.Main, "diff", "--name-only", "-z", "--diff-filter=U")
			if _, aerr := g.run(ctx, w.Main, "merge", "--abort"); aerr != nil {
				return res, fmt.Errorf("the merge stopped on conflicts and could not be aborted (%v); run git merge --abort in %s", aerr, w.Main)
			}
			return res, &ConflictError{W: w, Files: splitZ(files)}
		}
		if files := overwritten(err); len(files) > 0 {
			return res, &DirtyMainError{W: w, Files: files}
		}
		// A merge commit needs an identity too; git checks for one before
		// it touches the main checkout.
		return res, identityError(w, err)
	}
	head, _ := g.run(ctx, w.Main, "rev-parse", "HEAD")
	branch, _ := g.run(ctx, w.Main, "rev-parse", "refs/heads/"+w.Branch)
	res.Commit = strings.TrimSpace(head)
	res.FastForward = res.Commit == strings.TrimSpace(branch)
	return res, nil
}

func splitZ(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Discard removes the worktree (uncommitted changes too: the caller has
// asked) and deletes its branch. A folder already gone is pruned.
func (g *Git) Discard(ctx context.Context, w sessions.Worktree) error {
	if fi, err := os.Stat(w.Dir); err == nil && fi.IsDir() {
		if _, err := g.run(ctx, w.Main, "worktree", "remove", "--force", w.Dir); err != nil {
			return err
		}
	} else if err := g.Prune(ctx, w.Main); err != nil {
		return err
	}
	if _, err := g.run(ctx, w.Main, "rev-parse", "--verify", "--quiet", "refs/heads/"+w.Branch); err != nil {
		return nil // deleted already
	}
	_, err := g.run(ctx, w.Main, "branch", "-D", w.Branch)
	return err
}

// DiscardQuestion asks about a discard, naming what would be lost: the
// uncommitted changes, and commits the base does not have.
func DiscardQuestion(w sessions.Worktree, st Status) string {
	q := fmt.Sprintf("Discard the worktree of branch %s and delete the branch?", w.Branch)
	switch {
	case st.Missing:
		q += " Its folder is already gone."
	case st.Dirty():
		q += fmt.Sprintf(" Its uncommitted changes in %s are lost.", ListSome(st.Changed, 5))
	}
	if st.Ahead > 0 {
		q += fmt.Sprintf(" Commits not merged into %s are lost with the branch.", w.Base)
	}
	return q
}

// ListSome names up to n items and says how many more there are.
func ListSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
