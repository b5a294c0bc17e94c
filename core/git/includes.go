package git

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// The repository's config may include a file only under a condition:
// includeIf "onbranch:…", "gitdir:…", "hasconfig:…". Whether it holds
// depends on where git runs and on HEAD, not on any file the guard
// stamps, and changes inside one pi-tui operation: git worktree add
// checks the new worktree out in a child git on branch pi/… with its git
// dir under worktrees/, where the main checkout's listing did not see
// the file. So every file the repository's config includes is read
// whether its condition holds or not, and its program keys count as the
// repository's: the overrides then hold on any branch and in any git dir.

// maxIncludeDepth bounds how deep includes are followed (git's own bound
// is 10); maxIncludes bounds how many files are read.
const maxIncludeDepth, maxIncludes = 10, 64

// includedAnyway returns entries with the settings of every file the
// repository's own config includes (conditions or not, nested includes
// followed, each path as git resolves it) that the listing left out,
// given the scope "local". A file that is not there, or not a regular
// file, is skipped: git would include nothing from it. A file that
// cannot be read, too deep a nesting, or too many files is an error: git
// is then not run there.
func (g *Git) includedAnyway(ctx context.Context, entries []entry) ([]entry, error) {
	home, user := g.vars["HOME"], g.userSet()
	read := map[string]bool{}
	for _, e := range entries {
		if e.origin != "" {
			read[e.origin] = true
		}
	}
	type pending struct {
		e     entry
		depth int
	}
	var queue []pending
	for _, e := range entries {
		if fromRepository(e, user) {
			queue = append(queue, pending{e, 1})
		}
	}
	size, files := 0, 0
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		target, ok := includeTarget(p.e, home)
		if !ok || read[target] {
			continue
		}
		read[target] = true
		fi, err := os.Stat(target)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if p.depth > maxIncludeDepth {
			return nil, fmt.Errorf("the repository's git config nests includes more than %d deep (at %s); pi-tui does not run git there", maxIncludeDepth, target)
		}
		if files++; files > maxIncludes {
			return nil, fmt.Errorf("the repository's git config includes more than %d files; pi-tui does not run git there", maxIncludes)
		}
		if size += int(fi.Size()); size > maxConfigList {
			return nil, fmt.Errorf("the files the repository's git config includes are over %d MiB; pi-tui does not run git there", maxConfigList>>20)
		}
		out, err := g.plain(ctx, "", maxConfigList, "config", "--file", target, "--list", "--show-origin", "-z")
		if err != nil {
			var ge *Error
			if errors.As(err, &ge) && ge.Stderr != "" {
				return nil, fmt.Errorf("the repository's git config includes %s, which git cannot read (%s); pi-tui does not run git there", target, FirstLine(ge.Stderr))
			}
			return nil, fmt.Errorf("read %s, which the repository's git config includes: %w", target, err)
		}
		for _, e := range parseList(out, "/", false) {
			e.scope, e.origin = "local", target
			entries = append(entries, e)
			queue = append(queue, pending{e, p.depth + 1})
		}
	}
	return entries, nil
}
