package filesearch

import (
	"context"

	"github.com/pi-tui/pi-tui/core/git"
)

// SystemGit finds the user's git on env's PATH, hardened by core/git (no
// program the repository's config names runs), for a Cache. Without git
// the lists are made from the index file and the folder.
func SystemGit(env func(string) string) GitFinder {
	return func(ctx context.Context) (Git, error) {
		g, err := git.Find(ctx, git.Options{Env: env})
		if err != nil {
			return nil, err
		}
		return g, nil
	}
}
