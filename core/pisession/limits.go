package pisession

import (
	"errors"
	"fmt"
)

// An open Session holds its whole file in memory (every entry keeps its
// line's bytes), plus about 150 bytes per entry for the tree. These bounds
// keep that well under a gigabyte; a larger file is refused with
// ErrTooLarge before it is read (by size) or as soon as the count is
// passed (by entries), and listing still shows it, read as a stream. See
// docs/adr/0034-session-size-limits.md.
const (
	DefaultMaxFileBytes = 256 << 20
	DefaultMaxEntries   = 1_000_000
)

// ErrTooLarge: the file is larger, or holds more entries, than a Session
// holds in memory (Options.MaxFileBytes, Options.MaxEntries). It is left as
// it is.
var ErrTooLarge = errors.New("the session file is too large to open")

// tooLargeError says what was over which limit and what to do instead.
type tooLargeError struct {
	size     int64 // the file's size
	maxBytes int64 // set when the size is over it
	maxCount int   // set when the entries are over it
}

func (e *tooLargeError) Error() string {
	const todo = "; continue it in pi or start a new session (the file is left as it is)"
	if e.maxCount > 0 {
		return fmt.Sprintf("the file (%s) holds more than %d entries, more than pi-tui opens%s", formatSize(e.size), e.maxCount, todo)
	}
	return fmt.Sprintf("the file is %s, more than pi-tui opens (%s)%s", formatSize(e.size), formatSize(e.maxBytes), todo)
}

func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// formatSize writes a byte count the way a person reads it.
func formatSize(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d bytes", n)
	case n < k*k:
		return fmt.Sprintf("%.1f KiB", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1f MiB", float64(n)/(k*k))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(k*k*k))
}
