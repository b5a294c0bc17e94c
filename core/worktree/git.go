// Package worktree gives a session a git worktree of its own: a new branch
// pi/<short-id> checked out in a folder under the data dir, where the
// session's tools work, so several agents can change one project side by
// side. The work comes back with Merge (into the base branch of the main
// checkout) or goes with Discard. Everything runs the user's own git.
//
// Nothing here deletes committed work without being asked: removing a
// project, a crash or a worktree folder deleted by hand leaves the branch,
// and only Discard deletes it.
package worktree

import (
	"context"
	"fmt"
	"time"

	"github.com/pi-tui/pi-tui/core/git"
)

// Git runs the user's git for worktree sessions, through core/git (which
// keeps the repository's own config from running programs).
type Git struct {
	g       *git.Git
	timeout time.Duration // bounds a command run through g.Command
}

// Options configure Find (see core/git).
type Options = git.Options

// GitError is a git command that failed (see core/git).
type GitError = git.Error

// Find locates git on the PATH and checks its version once.
func Find(ctx context.Context, opts Options) (*Git, error) {
	g, err := git.Find(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("worktree sessions need git: %w", err)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	return &Git{g: g, timeout: opts.Timeout}, nil
}

// atLeast reports whether git is at least major.minor.
func (g *Git) atLeast(major, minor int) bool { return g.g.AtLeast(major, minor) }

// Version is git's version ("2.39.5").
func (g *Git) Version() string { return g.g.Version() }

// run runs git in dir ("" for anywhere) and returns its output.
func (g *Git) run(ctx context.Context, dir string, args ...string) (string, error) {
	return g.g.Run(ctx, dir, args...)
}
