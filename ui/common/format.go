package common

import "github.com/pi-tui/pi-tui/core/memory"

// Group writes n with thousands separators (32,768), as every screen
// shows byte counts.
func Group(n int) string { return memory.GroupDigits(n) }

// Plural counts n of unit ("1 line", "2,048 lines"): the way every screen
// of the Session tab says sizes and counts.
func Plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return Group(n) + " " + unit + "s"
}

// PluralOf is Plural for a noun whose plural is not unit+"s" ("1 match",
// "3 matches", "1 entry").
func PluralOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Group(n) + " " + many
}
