package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// A project may have several folders (ADR 0085): a path a tool names may
// lie in any of them, and is confined to the one it names exactly as a
// project of one folder confines it to its root. The forms a model may
// write (ADR 0089):
//
//   - a relative path: relative to the primary root, the session's
//     working directory, as it always was;
//   - NAME:path: path relative to the folder of that name, the form @
//     completion inserts (web:src/app.ts); only another folder's name is
//     read so, so a project of one folder reads every path as before, and
//     a primary file whose name holds a ":" is written ./web:x;
//   - an absolute path: inside whichever folder holds it.
//
// A path is judged in the folder it names: a link in it that leads
// anywhere else, into another folder of the project included, is refused
// as a link out of the root is, since each folder's files are opened
// through an os.Root of its own, which follows no link out. A path that
// names no folder (an absolute path through another name for a folder,
// such as a linked parent) is accepted only if it resolves inside one.

// Folder is one folder a session's file tools may reach.
type Folder struct {
	Name string // tells it apart in the project ("web"); the primary's is its base name
	Root string // canonical
}

// Folders are a session's folders, its working directory (the primary
// root, or the worktree standing in for it) first.
type Folders []Folder

// Single is a project of one folder.
func Single(root string) Folders {
	return Folders{{Name: filepath.Base(root), Root: root}}
}

// Primary is the session's working directory.
func (fs Folders) Primary() string {
	if len(fs) == 0 {
		return ""
	}
	return fs[0].Root
}

// Place is where a path a tool named lies.
type Place struct {
	Folder Folder
	Index  int    // in Folders; 0 is the primary root
	Canon  string // canonical, inside Folder.Root
	// multi is set when the project has other folders, whose names a
	// primary path must not be taken for.
	multi bool
}

// Rel is the path relative to its folder, slash-separated ("." for the
// folder itself).
func (p Place) Rel() string {
	rel, err := filepath.Rel(p.Folder.Root, p.Canon)
	if err != nil {
		return p.Canon
	}
	return filepath.ToSlash(rel)
}

// Label writes the path as the model and the user read it: relative to
// the primary root, or NAME:path in another folder (the form tools take
// back).
func (p Place) Label() string {
	if p.Index == 0 {
		rel := Rel(p.Folder.Root, p.Canon)
		if first, _, _ := strings.Cut(rel, "/"); p.multi && strings.ContainsRune(first, ':') {
			rel = "./" + rel
		}
		return rel
	}
	rel := p.Rel()
	if rel == "." {
		rel = ""
	}
	return p.Folder.Name + ":" + rel
}

// named splits p written NAME:path when NAME is the name of a folder
// other than the primary root (ignoring case: names are unique so).
func (fs Folders) named(p string) (int, string, bool) {
	name, rest, ok := strings.Cut(p, ":")
	if !ok || name == "" || strings.ContainsAny(name, `/\`) {
		return 0, "", false
	}
	for i := 1; i < len(fs); i++ {
		if strings.EqualFold(fs[i].Name, name) {
			return i, rest, true
		}
	}
	return 0, "", false
}

// Resolve finds the folder p names and makes p canonical inside it (see
// above); a path outside every folder, or leaving the folder it names, is
// refused with a sentence the model can act on. With one folder it is
// Path on the root, word for word.
func (fs Folders) Resolve(p string) (Place, error) {
	if len(fs) == 0 {
		return Place{}, errors.New("the session has no folder to work in")
	}
	if len(fs) == 1 {
		canon, err := Path(fs[0].Root, p)
		return Place{Folder: fs[0], Canon: canon}, err
	}
	if i, rest, ok := fs.named(p); ok {
		if filepath.IsAbs(rest) {
			return Place{}, fmt.Errorf("%s: after %s: give a path relative to that folder", p, fs[i].Name)
		}
		abs, err := absolute(fs[i].Root, rest)
		if err != nil {
			return Place{}, err
		}
		return fs.within(i, p, abs)
	}
	abs, err := absolute(fs[0].Root, p)
	if err != nil {
		return Place{}, err
	}
	for i, f := range fs {
		if fsutil.Within(f.Root, abs) {
			return fs.within(i, p, abs)
		}
	}
	// Named through no folder: refused, wherever it resolves to. Taking
	// it where its links lead would skip what within checks on the way
	// in: a folder gone from disk (pi's write would make it again) and a
	// link that leaves the folder it is in.
	return Place{}, fs.outside(p)
}

// within resolves abs, which lies in folder i as written, and keeps it
// there.
func (fs Folders) within(i int, p, abs string) (Place, error) {
	f := fs[i]
	if i > 0 {
		// A folder gone from disk is refused before anything resolves
		// under it: pi's write would otherwise make it again.
		if fi, err := os.Stat(f.Root); err != nil || !fi.IsDir() {
			return Place{}, fmt.Errorf("%s: folder %s (%s) of the project is missing from disk; nothing there can be reached", p, strconv.Quote(f.Name), f.Root)
		}
	}
	full, err := resolve(f.Root, p, abs)
	if err != nil {
		return Place{}, err
	}
	if !fsutil.Within(f.Root, full) {
		if i == 0 {
			return Place{}, fmt.Errorf("%s is outside the primary root %s (paths and links may not leave the folder they are in, even for another folder of the project: name a file of another folder as NAME:path)", p, f.Root)
		}
		return Place{}, fmt.Errorf("%s is outside folder %s (%s) (paths and links may not leave the folder they are in)", p, strconv.Quote(f.Name), f.Root)
	}
	return Place{Folder: f, Index: i, Canon: full, multi: true}, nil
}

func (fs Folders) outside(p string) error {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Root
	}
	return fmt.Errorf("%s is outside every folder of the project (%s); paths and links may not leave them", p, strings.Join(names, ", "))
}

// Holding is the folder that holds canon (canonical), if any.
func (fs Folders) Holding(canon string) (int, bool) {
	for i, f := range fs {
		if fsutil.Within(f.Root, canon) {
			return i, true
		}
	}
	return 0, false
}

// Place is where canon (canonical) lies, for a path some other step made
// canonical; ok is false outside every folder.
func (fs Folders) Place(canon string) (Place, bool) {
	i, ok := fs.Holding(canon)
	if !ok {
		return Place{}, false
	}
	return Place{Folder: fs[i], Index: i, Canon: canon, multi: len(fs) > 1}, true
}

// Label writes canon as Place.Label does; a path outside every folder is
// written as it is.
func (fs Folders) Label(canon string) string {
	if p, ok := fs.Place(canon); ok {
		return p.Label()
	}
	return canon
}

// OpenRootOf opens the folder a Place is in, saying which one could not
// be opened (a folder removed from disk is "missing").
func OpenRootOf(p Place) (*os.Root, error) {
	if p.Index == 0 {
		return OpenRoot(p.Folder.Root)
	}
	r, err := os.OpenRoot(p.Folder.Root)
	if err != nil {
		return nil, fmt.Errorf("folder %s (%s) of the project cannot be opened: %v", strconv.Quote(p.Folder.Name), p.Folder.Root, fsutil.PlainError(err))
	}
	return r, nil
}
