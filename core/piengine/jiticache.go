package piengine

import (
	"path/filepath"
	"strings"
)

// pi compiles TypeScript extensions (the bridge included) with jiti, which
// keeps what it compiled in <tmp>/jiti and runs a cached file whose name
// and trailer it can predict from the source: the bridge's source is
// public and its path is in the data dir. Where that folder belongs to
// another user, or others may write to it, someone else could plant the
// compiled bridge and run as the user, with the bridge's token. So pi-tui
// makes the folder itself (0700) when it is missing, and where it is not
// the user's alone, pi runs without jiti's file cache.

// jitiCacheEnv returns "JITI_FS_CACHE=false" when the jiti cache folder
// of the environment env is not safe to use, else "".
func jitiCacheEnv(env []string) string {
	tmp := "/tmp"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok && v != "" {
			tmp = v
		}
	}
	if ownFolder(filepath.Join(tmp, "jiti")) {
		return ""
	}
	return "JITI_FS_CACHE=false"
}
