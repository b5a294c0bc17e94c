package common

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// ShortPath fits path p into width cells by leaving folders out of its
// middle: "~/src/very/deeply/nested/in/the/projects/shop" becomes
// "~/src/…/in/the/projects/shop". The end is what tells two folders
// apart, so as many of the last elements as fit stay, whole; the first
// element (~, /x, or a relative path's first folder) stays too, since it
// says which tree the path is in, and the folders after it fill what room
// is left. Only when even "first/…/last" is too wide does the first go
// ("…/last"), and only when the last element alone is too wide is it cut,
// in its middle, so its start and its end (an extension, a -v2) show.
//
// Every width is in terminal cells (a CJK rune or an emoji is two) and
// nothing is cut inside a grapheme. Control characters in p are shown as
// text, never sent. Use it wherever a path has one line of limited width
// (a row, a header); where text wraps, a path is shown whole.
func ShortPath(p string, width int) string {
	p = VisibleLine(p)
	if ansi.StringWidth(p) <= width {
		return p
	}
	if width <= 0 {
		return ""
	}
	first, rest := splitPath(p)
	if len(rest) == 0 {
		return cutMiddle(p, width)
	}
	last := rest[len(rest)-1]
	fits := func(s string) bool { return ansi.StringWidth(s) <= width }
	// The last elements first, as many as fit beside the first and "…".
	tail := 0
	for tail < len(rest) && fits(first+"/…/"+strings.Join(rest[len(rest)-tail-1:], "/")) {
		tail++
	}
	if tail == 0 {
		if fits("…/" + last) {
			return "…/" + last
		}
		if width < 5 {
			return cutMiddle(last, width)
		}
		return "…/" + cutMiddle(last, width-2)
	}
	// Then the folders after the first, while one is still left out.
	end := strings.Join(rest[len(rest)-tail:], "/")
	head := first
	for _, e := range rest[:len(rest)-tail-1] {
		if !fits(head + "/" + e + "/…/" + end) {
			break
		}
		head += "/" + e
	}
	return head + "/…/" + end
}

// splitPath splits p into its first element ("~", "/x", or a relative
// path's first name) and the elements after it. A trailing slash stays
// on the last element, so a folder written as one still reads as one.
func splitPath(p string) (first string, rest []string) {
	lead := ""
	if strings.HasPrefix(p, "/") {
		lead, p = "/", p[1:]
	}
	trail := ""
	if len(p) > 1 && strings.HasSuffix(p, "/") {
		trail, p = "/", p[:len(p)-1]
	}
	elems := strings.Split(p, "/")
	elems[len(elems)-1] += trail
	return lead + elems[0], elems[1:]
}

// cutMiddle fits s into width cells by leaving out its middle, with "…"
// in its place: "shopping-…-backend-v2". The end gets the larger half.
func cutMiddle(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	if width <= 0 {
		return ""
	}
	room := width - 1 // the "…"
	g := graphemes(s)
	// The end first, up to its share, then the start takes what is left
	// (a wide rune at the edge of the end's share leaves a cell to it).
	endCells, from := 0, len(g)
	for from > 0 && endCells+g[from-1].w <= room-room/2 {
		from--
		endCells += g[from].w
	}
	startCells, to := 0, 0
	for to < from && startCells+g[to].w <= room-endCells {
		startCells += g[to].w
		to++
	}
	var b strings.Builder
	for _, c := range g[:to] {
		b.WriteString(c.s)
	}
	b.WriteString("…")
	for _, c := range g[from:] {
		b.WriteString(c.s)
	}
	return b.String()
}

// grapheme is one user-perceived character and the cells it takes.
type grapheme struct {
	s string
	w int
}

func graphemes(s string) []grapheme {
	var out []grapheme
	for s != "" {
		c, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
		if c == "" {
			break
		}
		out = append(out, grapheme{c, w})
		s = s[len(c):]
	}
	return out
}

// TildeText writes the home folder as ~ wherever a sentence (an error
// from a file, a hint) names a path inside it, as the screens write
// paths.
func TildeText(s, home string) string {
	if home == "" || home == "/" {
		return s
	}
	return strings.ReplaceAll(s, strings.TrimSuffix(home, "/")+"/", "~/")
}
