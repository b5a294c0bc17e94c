package common

import (
	"strings"

	"github.com/pi-tui/pi-tui/internal/safetext"
)

// Visible shows every character a terminal would act on as text; see
// safetext.Visible, the one implementation core and UI share.
func Visible(s string) string { return safetext.Visible(s) }

// VisibleLine is Visible for a place that holds one line; see
// safetext.VisibleLine.
func VisibleLine(s string) string { return safetext.VisibleLine(s) }

// Glyph returns a printable one-cell stand-in for a character a terminal
// would interpret; see safetext.Glyph.
func Glyph(r rune) (rune, bool) { return safetext.Glyph(r) }

// SafeANSI keeps the SGR sequences (colours, bold) of styled output such
// as glamour's and shows every other control visibly. Use it on output
// rendered from untrusted input, which Visible cannot be applied to
// without destroying the styling.
func SafeANSI(s string) string {
	if !strings.ContainsRune(s, 0x1b) {
		return Visible(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		i := strings.IndexByte(s, 0x1b)
		if i < 0 {
			b.WriteString(Visible(s))
			break
		}
		b.WriteString(Visible(s[:i]))
		s = s[i:]
		if n := sgrLen(s); n > 0 {
			b.WriteString(s[:n])
			s = s[n:]
			continue
		}
		b.WriteString(`\x1b`)
		s = s[1:]
	}
	return b.String()
}

// sgrLen returns the length of the SGR sequence (ESC [ digits ; : m) that
// s starts with, or 0.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'm':
			return i + 1
		case c >= '0' && c <= '9', c == ';', c == ':':
		default:
			return 0
		}
	}
	return 0
}
