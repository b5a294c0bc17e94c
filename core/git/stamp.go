package git

import (
	"os"
	"slices"
)

// stamp is what a config file looked like when it was read: a file
// created, removed or rewritten since then has another stamp.
type stamp struct {
	path   string
	exists bool
	size   int64
	mtime  int64
	ino    uint64
	ctime  int64
}

func stampOf(path string) stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{path: path}
	}
	if !fi.Mode().IsRegular() {
		// /dev/null as GIT_CONFIG_GLOBAL: only that it is there counts
		// (a device's times change as it is used).
		return stamp{path: path, exists: true, size: -1}
	}
	ino, ctime := changeID(fi)
	return stamp{path: path, exists: true, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: ino, ctime: ctime}
}

func stampAll(paths []string) []stamp {
	out := make([]stamp, len(paths))
	for i, p := range paths {
		out[i] = stampOf(p)
	}
	return out
}

// fresh reports whether every file is as it was stamped.
func fresh(stamps []stamp) bool {
	for _, s := range stamps {
		if stampOf(s.path) != s {
			return false
		}
	}
	return true
}

// addPaths adds the paths not in paths yet.
func addPaths(paths []string, more ...string) []string {
	for _, p := range more {
		if p != "" && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths
}
