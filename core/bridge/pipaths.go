package bridge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// pi reads a file tool's path more freely than pi-tui's confinement
// (confine.Path) does: it expands "~" and "~/…" to the home folder, drops
// a leading "@", turns "file://…" into a path, and reads some Unicode
// spaces as spaces (its normalizePath). Its read tool also, when a path
// does not exist, tries look-alike names (a narrow space before AM/PM,
// NFD, ’ for '), so a link the repository planted under such a name could
// be read for a name that confine.Path saw as missing inside the root. Both
// would let a path pi-tui passed as inside the root leave it.
//
// The host refuses what pi would read differently, rather than
// reimplement pi's rules (which can change within 1.x): a path in one of
// those forms, and a read of a path that does not exist (it could only
// succeed through a look-alike, and it would fail anyway otherwise).

// piSpaces are the characters pi's normalizePath turns into spaces.
const piSpaces = "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"

// piPathForm says why pi would read target differently from pi-tui, or
// "" when it reads it as written.
func piPathForm(target string) string {
	switch {
	case target == "~" || strings.HasPrefix(target, "~/"):
		return `a path starting with "~" (pi reads it as your home folder)`
	case strings.HasPrefix(target, "@"):
		return `a path starting with "@" (pi drops it)`
	case strings.HasPrefix(strings.ToLower(target), "file:"):
		return `a file: URL (pi reads it as a path)`
	case strings.ContainsAny(target, piSpaces):
		return "a path holding a Unicode space (pi reads it as a plain space)"
	}
	return ""
}

// checkPiPath refuses a file tool's target that pi would open elsewhere
// than where pi-tui confined it (see above); canon is the confined path.
func checkPiPath(tool, target, canon string) error {
	if why := piPathForm(target); why != "" {
		return fmt.Errorf("%s is %s; give the path relative to the project root as it is", visibleQuoted(target), why)
	}
	if tool == "read" {
		if _, err := os.Lstat(canon); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist (no look-alike name is read in its place)", visibleQuoted(filepath.ToSlash(target)))
		}
	}
	return nil
}

// visibleQuoted quotes s for an error the model reads, its control
// characters shown.
func visibleQuoted(s string) string { return fmt.Sprintf("%q", s) }
