package common

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Wrap breaks text into lines of at most width terminal cells (a wide
// rune counts two): the one word-wrapper for sentences a user needs
// (dialogs, notices, the transcript's lines, footers), which are wrapped,
// never cut. Lines break at spaces only, never at a hyphen inside a word
// ("auto-edits" stays whole, where ansi.Wrap breaks after its '-'): a
// word that does not fit goes whole to the next line. Only a word longer
// than a whole line (a long path, a URL) is broken, after a '/' (else a
// '-') where it has one in reach, else at the width. A line's indent, and
// a list item's marker ("• ", "- ", "1. "), is kept as a hanging indent
// on the lines it wraps to, so wrapped text lines up under its start
// instead of running back to the border. Runs of spaces inside a line are
// kept; spaces at a break are dropped. Text is expected plain (style it
// after wrapping): a styled word longer than a line is broken at the
// width. Tool output and file content are data, not sentences: they keep
// ansi.Wrap, which breaks where the width falls.
func Wrap(text string, width int) string {
	width = max(width, 1)
	var out []string
	for _, line := range strings.Split(text, "\n") {
		out = append(out, wrapLine(line, width)...)
	}
	return strings.Join(out, "\n")
}

// WrapExact breaks text as Wrap does, but keeps every character: the
// space at a break stays at the end of its line and nothing is indented.
// It is for text the user must see exactly (a command to approve, a
// diff line), where a dropped space would change what is shown.
func WrapExact(text string, width int) []string {
	width = max(width, 1)
	var out []string
	for _, line := range strings.Split(text, "\n") {
		out = append(out, wrapExact(line, width)...)
	}
	return out
}

// hanging returns the indent a wrapped line's continuations get: the
// line's leading spaces and its list marker, if any.
func hanging(line string) int {
	rest := strings.TrimLeft(line, " ")
	n := len(line) - len(rest)
	for _, m := range []string{"• ", "- ", "* ", "· "} {
		if strings.HasPrefix(rest, m) {
			return n + ansi.StringWidth(m)
		}
	}
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if digits > 0 && digits < 4 && strings.HasPrefix(rest[digits:], ". ") {
		return n + digits + 2
	}
	return n
}

func wrapLine(line string, width int) []string {
	if ansi.StringWidth(line) <= width {
		return []string{line}
	}
	indent := hanging(line)
	if width-indent < 12 {
		indent = 0 // too narrow to indent and still read
	}
	lead := len(line) - len(strings.TrimLeft(line, " "))
	words := strings.Split(line[lead:], " ")
	var out []string
	cur, curW := line[:lead], lead
	fresh := true // nothing but the indent on cur yet
	flush := func() {
		out = append(out, strings.TrimRight(cur, " "))
		cur, curW, fresh = strings.Repeat(" ", indent), indent, true
	}
	for _, w := range words {
		ww := ansi.StringWidth(w)
		switch {
		case fresh && w == "":
			continue // spaces at a break are dropped
		case fresh && curW+ww <= width:
			cur, curW, fresh = cur+w, curW+ww, false
			continue
		case !fresh && curW+1+ww <= width:
			cur, curW = cur+" "+w, curW+1+ww
			continue
		}
		if !fresh {
			flush()
			if curW+ww <= width {
				cur, curW, fresh = cur+w, curW+ww, false
				continue
			}
		}
		// Longer than a whole line: broken, the last piece going on.
		pieces := breakWord(w, width-curW, width-indent)
		for _, p := range pieces[:len(pieces)-1] {
			cur += p
			flush()
		}
		last := pieces[len(pieces)-1]
		cur, curW, fresh = cur+last, curW+ansi.StringWidth(last), false
	}
	if !fresh || len(out) == 0 {
		out = append(out, strings.TrimRight(cur, " "))
	}
	return out
}

// breakWord cuts a word into pieces: the first of at most first cells,
// the others of at most width, each ending after the last '/' in it, or
// else the last '-', when that keeps at least a third of its room.
func breakWord(w string, first, width int) []string {
	room := max(first, 1)
	var out []string
	for ansi.StringWidth(w) > room {
		var piece string
		if strings.Contains(w, "\x1b") {
			piece, _, _ = strings.Cut(ansi.Hardwrap(w, room, true), "\n")
		} else {
			piece = ansi.Truncate(w, room, "")
			// After a slash if one keeps a third of the room (a path
			// breaks between its names), else after a hyphen.
			for _, at := range []string{"/", "-"} {
				if i := strings.LastIndex(piece, at); i >= 0 && i < len(piece)-1 && ansi.StringWidth(piece[:i+1]) >= room/3 {
					piece = piece[:i+1]
					break
				}
			}
		}
		if piece == "" || !strings.HasPrefix(w, piece) { // a rune wider than the room
			_, size := utf8.DecodeRuneInString(w)
			piece = w[:size]
		}
		out = append(out, piece)
		w = w[len(piece):]
		room = max(width, 1)
	}
	return append(out, w)
}

func wrapExact(line string, width int) []string {
	if ansi.StringWidth(line) <= width {
		return []string{line}
	}
	// Tokens are runs of spaces and runs of anything else.
	var tokens []string
	start := 0
	for i := 1; i < len(line); i++ {
		if (line[i-1] == ' ') != (line[i] == ' ') {
			tokens = append(tokens, line[start:i])
			start = i
		}
	}
	tokens = append(tokens, line[start:])
	var out []string
	cur, curW := "", 0
	flush := func() {
		out = append(out, cur)
		cur, curW = "", 0
	}
	for _, t := range tokens {
		tw := ansi.StringWidth(t)
		if t[0] == ' ' {
			// Spaces stay at the end of their line as far as there is
			// room; the rest start the next.
			for t != "" {
				if curW == width {
					flush()
				}
				n := min(len(t), width-curW)
				cur, curW, t = cur+t[:n], curW+n, t[n:]
			}
			continue
		}
		if curW+tw <= width {
			cur, curW = cur+t, curW+tw
			continue
		}
		if strings.TrimLeft(cur, " ") != "" {
			flush()
		}
		// A line of spaces alone takes the word after them.
		if curW+tw <= width {
			cur, curW = cur+t, curW+tw
			continue
		}
		pieces := breakWord(t, width-curW, width)
		pieces[0] = cur + pieces[0]
		out = append(out, pieces[:len(pieces)-1]...)
		cur = pieces[len(pieces)-1]
		curW = ansi.StringWidth(cur)
	}
	if cur != "" || len(out) == 0 {
		out = append(out, cur)
	}
	return out
}
