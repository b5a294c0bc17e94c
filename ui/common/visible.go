package common

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Visible returns s with every character that a terminal would act on
// instead of print written out as text: C0 controls other than line feed
// and tab, DEL, C1 controls (U+0080–U+009F), bytes that are not UTF-8, and
// the bidirectional overrides, embeddings, isolates and marks that reorder
// what is drawn. ESC becomes the four characters \x1b, U+202E becomes
// \u202e. Text from a model, a tool or a file goes through it before it is
// drawn, so a hostile repository or model cannot hide text (SGR 8), set
// the clipboard (OSC 52), retitle the window (OSC 0) or reorder a command
// the user is asked to approve. Line feeds and tabs are kept for the
// caller's layout; VisibleLine is for places that are one line.
func Visible(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, c)
		case interpreted(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// VisibleLine is Visible for a place that holds one line (a tool call's
// summary, a title, the status bar): a line break shows as ⏎ and a tab as
// a space, so nothing after the first line can slip out of view.
func VisibleLine(s string) string {
	s = Visible(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\t", " ").Replace(s)
	}
	return s
}

// Glyph returns a printable one-cell stand-in for a character that a
// terminal would interpret (the Control Pictures block for C0 and DEL,
// U+FFFD for the others), for views such as the text editor that keep one
// cell per character so the cursor stays where the text is.
func Glyph(r rune) (rune, bool) {
	switch {
	case r == '\n' || r == '\t':
		return r, false
	case r < 0x20:
		return 0x2400 + r, true
	case r == 0x7f:
		return '␡', true
	case interpreted(r) || r == utf8.RuneError:
		return '�', true
	}
	return r, false
}

// interpreted reports whether a non-ASCII code point is one a terminal or
// the bidirectional algorithm acts on rather than prints.
func interpreted(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1 controls (0x9b is CSI on some terminals)
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // embeddings, overrides, isolates
		return true
	case r == 0x200e || r == 0x200f || r == 0x061c: // LRM, RLM, ALM
		return true
	}
	return false
}

// isPlain reports whether s needs no change: the common case, checked
// without allocating.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
		if c >= utf8.RuneSelf {
			for _, r := range s[i:] {
				if r == utf8.RuneError || interpreted(r) || r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
					return false
				}
			}
			return true
		}
	}
	return true
}

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

// numericRef matches an HTML numeric character reference, which markdown
// renderers decode into the character it names.
var numericRef = regexp.MustCompile(`&#([0-9]{1,8}|[xX][0-9a-fA-F]{1,8});`)

// MarkdownSafe prepares untrusted markdown for rendering: Visible, and
// numeric character references that would decode into a control character
// (&#27; is ESC) are escaped so they show as written. Render the result and
// pass the output through SafeANSI.
func MarkdownSafe(s string) string {
	s = Visible(s)
	if !strings.Contains(s, "&#") {
		return s
	}
	return numericRef.ReplaceAllStringFunc(s, func(ref string) string {
		num := ref[2 : len(ref)-1]
		base := 10
		if num[0] == 'x' || num[0] == 'X' {
			num, base = num[1:], 16
		}
		v, err := strconv.ParseInt(num, base, 32)
		r := rune(v)
		if err != nil || r < 0x20 || r == 0x7f || interpreted(r) || !utf8.ValidRune(r) {
			return "&amp;" + ref[1:]
		}
		return ref
	})
}
