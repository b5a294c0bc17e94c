package toolpolicy

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/internal/fsutil"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// A folder is a git directory to git (setup.c, is_git_directory) when it
// has a HEAD and its common dir has objects/ and refs/ that git can
// enter (access X_OK, links followed). The common dir is the folder
// itself, or the one its commondir file names (a linked worktree's git
// dir, .git/worktrees/<name>, names the repository's that way). git
// finds such a folder as a bare repository from any folder inside it,
// or through a .git file naming it, and then reads the common dir's
// config and hooks: core.fsmonitor, core.pager, a hook run as programs.
// A model that assembles one piece by piece, none of them under .git/,
// so plants code for the next git command there; makesGitDir finds the
// write that completes one, whichever piece comes last.
//
// Where it asks more than git would, it is on purpose. Any HEAD that is
// not a folder counts, valid or not: git reads its content, which a
// write to another name of the same file (a hard link, written in place
// by pi's tools) changes without touching HEAD. And a HEAD beside a
// commondir asks whatever commondir names (ADR 0060): the folders whose
// commondir names a given one can be anywhere, so they are looked for
// in a bounded set only (commonDirUser), and the pair is where the
// decision is local.

// maxListedEntries bounds how many entries of one folder commonDirUser
// looks at.
const maxListedEntries = 1024

// makesGitDir says why a write to canon (canonical, inside root) would
// leave a git directory that holds canon or whose common dir does, as
// git decides it: the write that completes one asks, and so does every
// write into one. "" otherwise. The file being written counts as
// present, and as a valid HEAD or any commondir, since its content is
// not known here.
func makesGitDir(root, canon string) string {
	w := shapeWrite{root: root, canon: canon}
	for dir := filepath.Dir(canon); ; dir = filepath.Dir(dir) {
		if why := w.gitDirAt(dir); why != "" {
			return why
		}
		if why := w.commonDirAt(dir); why != "" {
			return why
		}
		if dir == root || len(dir) <= len(root) {
			return ""
		}
	}
}

// shapeWrite is the write being decided.
type shapeWrite struct{ root, canon string }

// gitDirAt says why dir, after the write, is a git directory; "" when
// it is not.
func (w shapeWrite) gitDirAt(dir string) string {
	if !w.hasHead(dir) {
		return ""
	}
	if w.writes(dir, "commondir") || w.writes(dir, "HEAD") && hasCommondir(dir) {
		return "it puts HEAD and a commondir file together in " + w.where(dir) + ", which git then takes for a git directory using the folder commondir names, and runs code from that folder's config (core.fsmonitor, core.pager)"
	}
	common := dir
	if hasCommondir(dir) {
		p, ok := readCommondir(dir)
		if !ok {
			return "" // git stops there: no repository
		}
		common = canonicalPath(p)
	}
	if !w.enterable(common, "objects") || !w.enterable(common, "refs") {
		return ""
	}
	if common == dir {
		return "it makes " + w.where(dir) + " look like a git repository (HEAD, objects/, refs/), whose config git runs code from (core.fsmonitor)"
	}
	return "it makes " + w.where(dir) + " a git directory (its HEAD, with objects/ and refs/ in " + w.where(common) + ", which its commondir names), whose config there git runs code from (core.fsmonitor, core.pager)"
}

// commonDirAt says why dir, after the write, is the common dir of a git
// directory elsewhere (a folder with a HEAD whose commondir names dir);
// "" when no such folder is found.
func (w shapeWrite) commonDirAt(dir string) string {
	if !w.enterable(dir, "objects") || !w.enterable(dir, "refs") {
		return ""
	}
	user, ok := w.commonDirUser(dir)
	if !ok {
		return ""
	}
	return "it is in " + w.where(dir) + ", which the commondir file of " + w.where(user) + " names: git takes " + w.where(user) + " (it has a HEAD) for a git directory and runs code from this folder's config and hooks (core.fsmonitor, core.pager)"
}

// commonDirUser finds a folder with a HEAD whose commondir names common.
// It looks where such a folder is put beside the common dir, not in the
// whole tree: the sub-folders of common and of each folder above it up
// to the project root, and those of common/worktrees (git's own layout),
// at most maxListedEntries entries each. A folder elsewhere is missed;
// putting a HEAD beside its commondir asked (gitDirAt).
func (w shapeWrite) commonDirUser(common string) (string, bool) {
	names := func(dir string) bool {
		if !hasCommondir(dir) || !w.hasHead(dir) {
			return false
		}
		p, ok := readCommondir(dir)
		// Case folded, as the rules by name are: on a case-insensitive
		// file system BARE2 is bare2.
		return ok && strings.EqualFold(canonicalPath(p), common)
	}
	for _, d := range subfolders(filepath.Join(common, "worktrees")) {
		if names(d) {
			return d, true
		}
	}
	for dir := common; ; dir = filepath.Dir(dir) {
		for _, d := range subfolders(dir) {
			if names(d) {
				return d, true
			}
		}
		if dir == w.root || len(dir) <= len(w.root) {
			return "", false
		}
	}
}

// subfolders lists the folders in dir (not links to them), at most
// maxListedEntries entries read; nil when dir is not a readable folder.
// The open does not block, so a FIFO swapped in for dir costs nothing.
func subfolders(dir string) []string {
	f, err := os.OpenFile(dir, os.O_RDONLY|fsutil.ONonblock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return nil
	}
	ents, _ := f.ReadDir(maxListedEntries)
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// writes reports whether the write creates or changes dir/name or
// something in it. Names are compared without case, as byName does.
func (w shapeWrite) writes(dir, name string) bool {
	sep := string(filepath.Separator)
	rest, ok := strings.CutPrefix(w.canon, strings.TrimSuffix(dir, sep)+sep)
	if !ok {
		return false
	}
	first, _, _ := strings.Cut(rest, sep)
	return strings.EqualFold(first, name)
}

// hasHead: dir has a HEAD after the write, any file or link but a folder.
func (w shapeWrite) hasHead(dir string) bool {
	if w.writes(dir, "HEAD") {
		return true
	}
	fi, err := os.Lstat(filepath.Join(dir, "HEAD"))
	return err == nil && !fi.IsDir()
}

// enterable: git can enter dir/name after the write (access X_OK, as
// is_git_directory asks): a folder, or a file with an execute bit, links
// followed.
func (w shapeWrite) enterable(dir, name string) bool {
	if w.writes(dir, name) {
		return true
	}
	fi, err := os.Stat(filepath.Join(dir, name))
	return err == nil && (fi.IsDir() || fi.Mode()&0o111 != 0)
}

// hasCommondir: git finds a commondir file in dir (it follows links); a
// folder of that name makes git stop, so it is none.
func hasCommondir(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "commondir"))
	return err == nil && !fi.IsDir()
}

// where names dir for a reason: relative to the project root, its
// control characters shown as text so the reason stays one line.
func (w shapeWrite) where(dir string) string {
	rel, err := filepath.Rel(w.root, dir)
	switch {
	case err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)):
		rel = dir
	case rel == ".":
		return "the project folder"
	}
	return safetext.VisibleLine(filepath.ToSlash(rel)) + "/"
}
