package instructions

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/internal/safetext"
)

// location is where a target lands inside the root.
type location struct {
	dir    string // deepest existing canonical directory on the way to the target
	tdir   string // canonical target directory, possibly not existing yet
	target string // canonical target path (or the cleaned path when refused)
}

// locate resolves target against the canonical root x.root. givenRoot is
// the root as the caller spelled it (absolute), so that an absolute target
// written through a linked root path is still recognised. A non-empty
// warning means the target was refused and the root chain applies.
//
// Only existing components are resolved: the walk lstats one component at
// a time and pays for filepath.EvalSymlinks only at a link. Components
// that do not exist yet cannot be links, so they are appended as written.
func (x *run) locate(givenRoot, target string) (location, string) {
	if strings.IndexByte(target, 0) >= 0 {
		return location{target: x.root}, "target contains a NUL byte; only the root instructions apply"
	}
	dirHint := strings.HasSuffix(target, "/") || strings.HasSuffix(target, sep)
	var abs string
	if filepath.IsAbs(target) {
		abs = filepath.Clean(target)
	} else {
		abs = filepath.Join(x.root, target)
	}
	refused := location{target: abs}
	if !within(x.root, abs) {
		rel, ok := relWithin(givenRoot, abs)
		if !ok || !filepath.IsAbs(target) {
			return refused, fmt.Sprintf("target %s is outside the project root %s; only the root instructions apply", safetext.Label(abs), safetext.Label(x.root))
		}
		abs = joinRel(x.root, rel)
	}
	rest := ""
	if abs != x.root {
		rest = abs[len(trimSep(x.root))+1:]
	}
	cur := x.root
	lexical := true // cur is a prefix of abs
	for rest != "" {
		comp := rest
		if i := strings.IndexByte(rest, filepath.Separator); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		last := rest == ""
		var next string
		if lexical {
			next = abs[:len(trimSep(cur))+1+len(comp)]
		} else {
			next = joinPath(cur, comp)
		}
		fi, err := x.sys.lstat(next)
		if err == nil && fi.kind == kindSymlink {
			resolved, lerr := filepath.EvalSymlinks(next)
			if lerr != nil {
				what := "goes through a link that cannot be resolved"
				switch {
				case isLoop(lerr):
					what = "goes through a link loop"
				case isNotExist(lerr):
					what = "goes through a dangling link"
				}
				return refused, fmt.Sprintf("target %s %s; only the root instructions apply", safetext.Label(abs), what)
			}
			if !within(x.root, resolved) {
				return refused, fmt.Sprintf("target %s leaves the project root %s through a link (to %s); only the root instructions apply",
					safetext.Label(abs), safetext.Label(x.root), safetext.Label(resolved))
			}
			next, lexical = resolved, false
			fi, err = x.sys.stat(resolved)
		}
		if err != nil || fi.kind != kindDir {
			if err == nil && last && !dirHint {
				// An existing file: its directory is its parent.
				return location{dir: cur, tdir: cur, target: next}, ""
			}
			// Missing (or unreadable, or a file used as a directory):
			// the rest is appended as written and contributes nothing.
			full := next
			if rest != "" {
				full = joinRel(next, rest)
			}
			tdir := full
			if !dirHint {
				tdir = filepath.Dir(full)
			}
			return location{dir: cur, tdir: tdir, target: full}, ""
		}
		x.noteDir(next, fi)
		cur = next
	}
	return location{dir: cur, tdir: cur, target: cur}, ""
}

func joinRel(base, rel string) string {
	if rel == "" {
		return base
	}
	return joinPath(base, rel)
}
