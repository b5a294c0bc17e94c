package common

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/pi-tui/pi-tui/internal/safetext"
)

// numericRef matches an HTML numeric character reference, which markdown
// renderers decode into the character it names.
var numericRef = regexp.MustCompile(`&#([0-9]{1,8}|[xX][0-9a-fA-F]{1,8});`)

// MarkdownSafe prepares untrusted markdown for rendering: Visible;
// numeric character references that would decode into a control character
// (&#27; is ESC) are escaped so they show as written; and every "<"
// outside code is escaped, because glamour drops raw HTML (a model's
// "Vec<T>" or "<div>" would vanish) and draws an autolink without its
// brackets. Inside code spans and code blocks "<" is literal already.
// Applying it twice changes nothing. Render the result and pass the
// output through SafeANSI.
func MarkdownSafe(s string) string {
	s = escapeAngles(Visible(s))
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
		if err != nil || r < 0x20 || r == 0x7f || safetext.Interpreted(r) || !utf8.ValidRune(r) {
			return "&amp;" + ref[1:]
		}
		return ref
	})
}

// mdParser parses as glamour does (GFM, definition lists), so the code it
// finds is the code glamour will draw. A parser holds no state between
// parses; it is built once because building it is not free.
var mdParser = sync.OnceValue(func() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList)).Parser()
})

// escapeAngles puts a backslash before every "<" outside code, so no raw
// HTML, HTML block or autolink is left. Escaping can change what is code
// (a backtick that raw HTML held becomes a code span's), so it parses
// again until nothing more needs escaping; each round escapes at least one
// more "<", so it ends. An escape that ended up inside code would show
// its backslash: it is taken back if everything stays as it was.
func escapeAngles(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var angles []int // where s has a "<"
	for i := range len(s) {
		if s[i] == '<' {
			angles = append(angles, i)
		}
	}
	esc := make([]bool, len(angles))
	t, code := s, codeBytes(s)
	for range len(angles) + 1 {
		more, n := false, 0
		for k, i := range angles {
			if !esc[k] && !code[i+n] && !escaped(t, i+n) {
				esc[k], more = true, true
			} else if esc[k] {
				n++
			}
		}
		if !more {
			break
		}
		t = withEscapes(s, angles, esc)
		code = codeBytes(t)
	}
	// Take back the escapes that are inside code.
	kept := slices.Clone(esc)
	undo, n := false, 0
	for k, i := range angles {
		if esc[k] {
			n++
			if code[i+n] {
				kept[k], undo = false, true
			}
		}
	}
	if !undo {
		return t
	}
	t2 := withEscapes(s, angles, kept)
	code2 := codeBytes(t2)
	n = 0
	for k, i := range angles {
		if kept[k] {
			n++
		} else if !code2[i+n] && !escaped(t2, i+n) {
			return t
		}
	}
	return t2
}

// withEscapes is s with a backslash before each chosen "<".
func withEscapes(s string, angles []int, esc []bool) string {
	var b strings.Builder
	b.Grow(len(s) + len(angles))
	last := 0
	for k, i := range angles {
		if esc[k] {
			b.WriteString(s[last:i])
			b.WriteByte('\\')
			last = i
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// escaped reports whether the byte at i follows an odd run of backslashes.
func escaped(s string, i int) bool {
	n := 0
	for i > 0 && s[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// codeBytes marks the bytes of s that goldmark parses as the text of a
// code span or a code block.
func codeBytes(s string) []bool {
	src := []byte(s)
	code := make([]bool, len(src))
	mark := func(seg text.Segment) {
		for i := seg.Start; i < seg.Stop && i < len(code); i++ {
			code[i] = true
		}
	}
	doc := mdParser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindCodeBlock, ast.KindFencedCodeBlock:
			lines := n.Lines()
			for i := range lines.Len() {
				mark(lines.At(i))
			}
			return ast.WalkSkipChildren, nil
		case ast.KindCodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					mark(t.Segment)
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return code
}
