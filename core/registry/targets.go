package registry

import (
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Which folder of a project a path given by a person names: the command
// line's instructions TARGET and the Instructions page's path.

// FolderTarget finds the folder of p other than the primary root (ADR
// 0085) that holds the target given: written NAME:path (the form @
// completion inserts; path relative to that folder), or a path that is in
// the folder, absolute or relative to from (../web/x): the root the
// caller resolves the primary chain from, the primary root or a session's
// worktree. It returns the folder and the target to resolve in it; ok is
// false for a target in the primary root or in no folder, which the
// root's resolution handles.
func (p Project) FolderTarget(given, from string) (Folder, string, bool) {
	if len(p.Folders) < 2 || strings.ContainsRune(given, 0) {
		return Folder{}, "", false
	}
	others := p.Folders[1:]
	if name, rest, ok := strings.Cut(given, ":"); ok && !strings.ContainsRune(name, '/') {
		for _, f := range others {
			if strings.EqualFold(f.Name, name) {
				return f, filepath.Join(f.Path, filepath.FromSlash(rest)), true
			}
		}
	}
	abs := given
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(from, abs)
	}
	for _, f := range others {
		if t := CanonicalTarget(abs, f.Path); fsutil.Within(f.Path, filepath.Clean(t)) {
			return f, t, true
		}
	}
	return Folder{}, "", false
}

// CanonicalTarget rewrites an absolute target written through a link to
// the root (a shell in a symlinked checkout, macOS's /tmp) onto the root's
// canonical path, by resolving its deepest existing ancestor. Targets that
// stay outside the root are left for the resolver to refuse.
func CanonicalTarget(target, root string) string {
	if !filepath.IsAbs(target) || strings.ContainsRune(target, 0) {
		return target
	}
	clean := filepath.Clean(target)
	if clean == root || strings.HasPrefix(clean, root+string(filepath.Separator)) {
		return target
	}
	rest := ""
	for dir := clean; ; {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			full := filepath.Join(real, rest)
			if full == root || strings.HasPrefix(full, root+string(filepath.Separator)) {
				if strings.HasSuffix(target, string(filepath.Separator)) {
					full += string(filepath.Separator)
				}
				return full
			}
			return target
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return target
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
