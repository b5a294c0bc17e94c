package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"

	"github.com/pi-tui/pi-tui/core/git"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// What a merge must not do to the main checkout, checked before it runs:
// git treats ignored files as disposable, so a branch that adds .env
// would overwrite the user's ignored .env, and a branch that adds a file
// data would delete an ignored folder data/ with everything in it; and a
// merge that needs a program the repository's own config names (a merge
// driver, a required filter) cannot be done by pi-tui, which runs none.

// IgnoredMainError refuses a merge that would overwrite or delete files
// of the main checkout that git ignores.
type IgnoredMainError struct {
	W     sessions.Worktree
	Files []string
}

func (e *IgnoredMainError) Error() string {
	return fmt.Sprintf("the merge would overwrite or delete %s in the main checkout %s, which git ignores (and would not keep); nothing was merged: move them away (or commit them) there first",
		ListSome(e.Files, 5), e.W.Main)
}

// StagedMainError refuses a merge that is not a fast-forward while the
// main checkout has staged changes: git merges into a clean index only.
type StagedMainError struct {
	W     sessions.Worktree
	Files []string
}

func (e *StagedMainError) Error() string {
	return fmt.Sprintf("the main checkout %s has staged changes in %s, and merging %s is not a fast-forward, which git does only with nothing staged; nothing was merged: commit them there, or unstage them (git -C %s restore --staged .), then merge again",
		e.W.Main, ListSome(e.Files, 5), e.W.Branch, e.W.Main)
}

// ProgramMergeError refuses a merge that needs a program the
// repository's own git config names.
type ProgramMergeError struct {
	W        sessions.Worktree
	Programs []git.Program
	Files    []string
}

func (e *ProgramMergeError) Error() string {
	names := make([]string, len(e.Programs))
	for i, p := range e.Programs {
		names[i] = p.String()
	}
	return fmt.Sprintf("merging %s into %s needs %s for %s, which the repository's own git config names, and pi-tui runs no program a repository's config names; nothing was merged: merge by hand with git -C %s merge %s (your git runs it), or set it in your global git config to trust it",
		e.W.Branch, e.W.Base, strings.Join(names, ", "), ListSome(e.Files, 5), e.W.Main, e.W.Branch)
}

// mainState is the main checkout's status as a merge needs it.
type mainState struct {
	dirty   []string // uncommitted paths, untracked ones too
	staged  []string // paths with staged changes
	ignored []string // ignored paths; a folder ends with "/" and stands for all it holds
}

// readMain reads the main checkout's status in one git status.
func (g *Git) readMain(ctx context.Context, w sessions.Worktree) (mainState, error) {
	out, err := g.run(ctx, w.Main, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=matching", "--ignore-submodules=dirty")
	if err != nil {
		return mainState{}, err
	}
	var st mainState
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		x, p := f[0], f[3:]
		switch {
		case x == '!':
			st.ignored = append(st.ignored, p)
			continue
		case x != ' ' && x != '?':
			st.staged = append(st.staged, p)
		}
		st.dirty = append(st.dirty, p)
		if x == 'R' || x == 'C' {
			i++ // the source of a rename follows
		}
	}
	return st, nil
}

// ignoredClash lists the ignored paths of the main checkout (root) that
// writing or deleting the touched paths would overwrite or delete: an
// ignored file at a touched path; an ignored file where a touched path
// needs a folder; an ignored folder, or a folder holding ignored files,
// at a touched path (the branch puts a file there); and, inside an
// ignored folder, whatever is already at a touched path or in its way.
func ignoredClash(root *os.Root, touched, ignored []string) []string {
	files, dirs, below := map[string]bool{}, map[string]bool{}, map[string]string{}
	for _, p := range ignored {
		if d, ok := strings.CutSuffix(p, "/"); ok {
			dirs[d] = true
		} else {
			files[p] = true
		}
		for a := path.Dir(strings.TrimSuffix(p, "/")); a != "."; a = path.Dir(a) {
			if _, ok := below[a]; !ok {
				below[a] = p
			}
		}
	}
	var clash []string
	add := func(p string) {
		if !slices.Contains(clash, p) {
			clash = append(clash, p)
		}
	}
	for _, t := range touched {
		switch {
		case files[t]:
			add(t)
		case dirs[t]:
			add(t + "/")
		case below[t] != "":
			add(below[t])
		}
		for a := path.Dir(t); a != "."; a = path.Dir(a) {
			if files[a] {
				add(a)
			}
			if dirs[a] {
				if p, ok := inTheWay(root, a, t); ok {
					add(p)
				}
			}
		}
	}
	return clash
}

// inTheWay finds, in the ignored folder dir, what a merge writing t
// would replace: t itself, or a file where t needs a folder.
func inTheWay(root *os.Root, dir, t string) (string, bool) {
	rest := strings.Split(strings.TrimPrefix(t, dir+"/"), "/")
	p := dir
	for i, part := range rest {
		p += "/" + part
		fi, err := root.Lstat(p)
		if err != nil {
			return "", false
		}
		if i == len(rest)-1 || !fi.IsDir() {
			return p, true
		}
	}
	return "", false
}

// programsNeeded finds what the merge would need of the programs the
// repository's config withholds: the merge driver of a file both sides
// changed, and a required filter of a file the branch changed (the merge
// writes it through the filter). A branch that changes a .gitattributes
// may give any file any driver: then every withheld driver and required
// filter counts.
func (g *Git) programsNeeded(ctx context.Context, w sessions.Worktree, touched []string) ([]git.Program, []string, error) {
	withheld, err := g.g.Withheld(ctx, w.Main)
	if err != nil {
		return nil, nil, err
	}
	drivers, filters := map[string][]git.Program{}, map[string][]git.Program{}
	for _, p := range withheld {
		section, sub, _ := strings.Cut(p.Key, ".")
		name := sub[:max(strings.LastIndexByte(sub, '.'), 0)]
		switch {
		case section == "merge" && strings.HasSuffix(p.Key, ".driver"):
			drivers[name] = append(drivers[name], p)
		case section == "filter" && p.Required:
			filters[name] = append(filters[name], p)
		}
	}
	if len(drivers) == 0 && len(filters) == 0 {
		return nil, nil, nil
	}
	var need []git.Program
	var files []string
	use := func(ps []git.Program, file string) {
		for _, p := range ps {
			if !slices.Contains(need, p) {
				need = append(need, p)
			}
		}
		if !slices.Contains(files, file) {
			files = append(files, file)
		}
	}
	for _, t := range touched {
		if path.Base(t) == ".gitattributes" {
			for _, m := range []map[string][]git.Program{drivers, filters} {
				for _, ps := range m {
					use(ps, t)
				}
			}
		}
	}
	both := map[string]bool{}
	if len(drivers) > 0 {
		out, err := g.run(ctx, w.Main, "diff", "--name-only", "-z", "--no-renames", "refs/heads/"+w.Branch+"...refs/heads/"+w.Base)
		if err != nil {
			return nil, nil, err
		}
		for _, p := range splitZ(out) {
			both[p] = true
		}
	}
	attrs, err := g.checkAttr(ctx, w.Main, touched, "merge", "filter")
	if err != nil {
		return nil, nil, err
	}
	for _, a := range attrs {
		switch {
		case a.attr == "merge" && both[a.path] && drivers[a.value] != nil:
			use(drivers[a.value], a.path)
		case a.attr == "filter" && filters[a.value] != nil:
			use(filters[a.value], a.path)
		}
	}
	return need, files, nil
}

type attrValue struct{ path, attr, value string }

// checkAttr reads attributes of paths in dir, the paths given on stdin
// (there may be more than a command line holds).
func (g *Git) checkAttr(ctx context.Context, dir string, paths []string, attrs ...string) ([]attrValue, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	cmd, err := g.g.Command(ctx, dir, append([]string{"check-attr", "-z", "--stdin"}, attrs...)...)
	if err != nil {
		return nil, err
	}
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, &git.Error{Args: []string{"check-attr"}, Stderr: errb.String(), Err: err}
	}
	fields := strings.Split(string(out), "\x00")
	var vals []attrValue
	for i := 0; i+3 <= len(fields); i += 3 {
		if v := fields[i+2]; v != "unspecified" && v != "unset" && v != "set" {
			vals = append(vals, attrValue{path: fields[i], attr: fields[i+1], value: v})
		}
	}
	return vals, nil
}

// noDirectoryRenames is given to every merge (and to the merge-tree that
// foresees it): with directory-rename detection git moves a file the
// branch added to a folder the base renamed into the new folder, to a
// path the branch never named, where an ignored file of the main
// checkout may be. It would overwrite that file, or (by default) stop
// on a conflict there whose abort deletes it. Without it the file stays
// where the branch put it, and the paths the merge writes are the ones
// checked before.
const noDirectoryRenames = "merge.directoryRenames=false"

// mergeTouched lists the paths a merge of the branch writes or deletes
// in the main checkout: the paths the branch changed since it left the
// base (renames as a deletion and an addition, so both count) and, where
// git has merge-tree --write-tree (2.38), every path where the merged
// tree differs from the base's and every conflicted path (conflicts and
// renames git works out itself may write elsewhere).
func (g *Git) mergeTouched(ctx context.Context, w sessions.Worktree) ([]string, error) {
	base, branch := "refs/heads/"+w.Base, "refs/heads/"+w.Branch
	out, err := g.run(ctx, w.Main, "diff", "--name-only", "-z", "--no-renames", base+"..."+branch)
	if err != nil {
		return nil, err
	}
	touched := splitZ(out)
	if !g.atLeast(2, 38) {
		return touched, nil
	}
	out, err = g.run(ctx, w.Main, "-c", noDirectoryRenames, "merge-tree", "--write-tree", "--name-only", "-z", base, branch)
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		// merge-tree could not merge (a merge driver withheld, say):
		// the merge itself is checked and refused for that reason.
		return touched, nil
	}
	tree, conflicted := mergeTreeOutput(out)
	if tree == "" {
		return touched, nil
	}
	seen := make(map[string]bool, len(touched))
	for _, p := range touched {
		seen[p] = true
	}
	add := func(ps []string) {
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				touched = append(touched, p)
			}
		}
	}
	add(conflicted)
	out, err = g.run(ctx, w.Main, "diff-tree", "-r", "--name-only", "-z", "--no-renames", base, tree)
	if err != nil {
		return nil, err
	}
	add(splitZ(out))
	return touched, nil
}

// mergeTreeOutput reads `git merge-tree --write-tree --name-only -z`:
// the merged tree, then the conflicted paths, each ended by a NUL, then
// an empty field and git's messages.
func mergeTreeOutput(out string) (tree string, conflicted []string) {
	fields := strings.Split(out, "\x00")
	if len(fields) < 2 {
		return "", nil
	}
	for _, f := range fields[1:] {
		if f == "" {
			break
		}
		conflicted = append(conflicted, f)
	}
	return strings.TrimSpace(fields[0]), conflicted
}
