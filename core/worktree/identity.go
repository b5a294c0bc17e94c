package worktree

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pi-tui/pi-tui/core/sessions"
)

// IdentityError is a merge that needs a commit (of the worktree's
// uncommitted changes, or a merge commit) when git knows no name and
// email to sign it with. git's own words ("Author identity unknown",
// then a block of advice that a one-line error cuts off) do not say what
// to do; this says it, with the two commands, and that nothing changed.
type IdentityError struct {
	W sessions.Worktree
}

func (e *IdentityError) Error() string {
	return fmt.Sprintf("git needs your name and email to commit the merge and has none: set them with "+
		`git config --global user.name "Your Name" and git config --global user.email you@example.com, then merge again; `+
		"nothing was merged and nothing is lost (the work is on %s, in its worktree, as it was)", e.W.Branch)
}

// checkIdentity asks git, in dir, for the author and committer a commit
// would get (git var, through the same hardened runner as every call),
// so that a commit without one is refused before anything is staged.
func (g *Git) checkIdentity(ctx context.Context, w sessions.Worktree, dir string) error {
	for _, v := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		if _, err := g.run(ctx, dir, "var", v); err != nil {
			return identityError(w, err)
		}
	}
	return nil
}

// identityError is err as an *IdentityError when git failed for want of
// an identity, else err.
func identityError(w sessions.Worktree, err error) error {
	var ge *GitError
	if !errors.As(err, &ge) {
		return err
	}
	for _, s := range []string{"Please tell me who you are", "identity unknown", "auto-detection is disabled", "unable to auto-detect email address"} {
		if strings.Contains(ge.Stderr, s) {
			return &IdentityError{W: w}
		}
	}
	return err
}
