package filesearch

import (
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// A project may have several folders (ADR 0085). Its primary root's
// files are written after @ as they always were (@src/x.go); a file in
// another folder is written with that folder's name, NAME:path
// (@web:src/x.ts), which says which folder without depending on where
// the folders lie relative to each other. Folder names hold no ":" or
// "/", so the first ":" ends the name.

// Folder is a folder of a project other than its primary root.
type Folder struct {
	Name string
	Root string // canonical
}

// Written is how the file at rel (slash-separated, relative to its
// folder) is written after @: rel in the primary root (name ""), else
// NAME:rel. A primary root's path whose first part holds a ":" is written
// ./rel, so it is never taken for a folder's.
func Written(name, rel string) string {
	if name != "" {
		return name + ":" + rel
	}
	if first, _, _ := strings.Cut(rel, "/"); strings.ContainsRune(first, ':') {
		return "./" + rel
	}
	return rel
}

// inFolder splits ref written NAME:path when NAME is one of folders
// (ignoring case, as names are unique that way).
func inFolder(ref string, folders []Folder) (Folder, string, bool) {
	name, rest, ok := strings.Cut(ref, ":")
	if !ok || name == "" || strings.ContainsRune(name, '/') {
		return Folder{}, "", false
	}
	for _, f := range folders {
		if strings.EqualFold(f.Name, name) {
			return f, rest, true
		}
	}
	return Folder{}, "", false
}

// folderPath finds the file a reference names: NAME:path in that folder,
// an absolute path in whichever folder holds it, else a path of the
// primary root. It returns the folder's root, its name ("" for the
// primary root) and the path relative to it; ok is false for a reference
// that names no file of the project.
func folderPath(root string, others []Folder, ref string) (dir, name, rel string, ok bool) {
	if f, rest, found := inFolder(ref, others); found {
		rel, ok = projectPath(f.Root, rest)
		return f.Root, f.Name, rel, ok
	}
	if filepath.IsAbs(ref) {
		for _, f := range others {
			if fsutil.Within(f.Root, filepath.Clean(ref)) {
				rel, ok = projectPath(f.Root, ref)
				return f.Root, f.Name, rel, ok
			}
		}
	}
	rel, ok = projectPath(root, ref)
	return root, "", rel, ok
}

// Source is one folder's files for @ completion: Name "" for the primary
// root; a nil Matcher while its list is not loaded.
type Source struct {
	Name    string
	Matcher *Matcher
}

// TopAcross returns the n best matches for query across sources, taken
// in order: every match in the first source (the primary root) before any
// of the second, and so on, each source's best first. A query written
// NAME:text searches that folder alone for text. Paths are as written
// after @ (Written). total counts the matches of every source.
func TopAcross(sources []Source, query string, n int) (top []Match, total int) {
	var named []Folder
	for _, s := range sources {
		if s.Name != "" {
			named = append(named, Folder{Name: s.Name})
		}
	}
	if f, rest, ok := inFolder(query, named); ok {
		for _, s := range sources {
			if s.Name == f.Name && s.Matcher != nil {
				return written(s, rest, n)
			}
		}
		return nil, 0
	}
	for _, s := range sources {
		if s.Matcher == nil {
			continue
		}
		m, t := written(s, query, max(n-len(top), 0))
		top = append(top, m...)
		total += t
	}
	return top, total
}

// written is one source's matches with their paths as written after @.
func written(s Source, query string, n int) ([]Match, int) {
	if n == 0 {
		// Counted, not kept: the menu is full already.
		_, t := s.Matcher.Top(query, 1)
		return nil, t
	}
	top, total := s.Matcher.Top(query, n)
	for i := range top {
		top[i].Path = Written(s.Name, top[i].Path)
	}
	return top, total
}
