package markdown

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

const goBlock = "Some **bold** text.\n\n```go\nfunc main() { return }\n```\n"

// Code blocks are still highlighted although chroma now parses its lexers
// and styles on first use: the keyword and the name get different colours.
func TestCodeBlocksAreHighlighted(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	r.SetHasDarkBackground(true)
	out, err := New(r).Render(goBlock, 60)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ansi.Strip(out), "func main() { return }") {
		t.Fatalf("code missing from %q", out)
	}
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(ansi.Strip(l), "func main") {
			line = l
		}
	}
	// Each token is drawn with its own colour: the keyword "func" and
	// the name "main" must not share one escape sequence.
	fn, name := colourOf(line, "func"), colourOf(line, "main")
	if fn == "" || name == "" || fn == name {
		t.Fatalf("func and main are not coloured apart (%q, %q) in %q", fn, name, line)
	}
}

// colourOf is the last escape sequence written before word in line.
func colourOf(line, word string) string {
	i := strings.Index(line, word)
	if i < 0 {
		return ""
	}
	j := strings.LastIndex(line[:i], "\x1b[")
	if j < 0 {
		return ""
	}
	return line[j:i]
}

// Without colour the text is plain, and one renderer serves two widths.
func TestPlainAndRewrapped(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	m := New(r)
	wide, err := m.Render("word "+strings.Repeat("x ", 40), 120)
	if err != nil {
		t.Fatal(err)
	}
	narrow, err := m.Render("word "+strings.Repeat("x ", 40), 40)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(wide, "\x1b[") {
		t.Fatalf("escape sequences without colour: %q", wide)
	}
	if strings.Count(narrow, "\n") <= strings.Count(wide, "\n") {
		t.Fatalf("narrow render not wrapped more:\n%s\n---\n%s", narrow, wide)
	}
}

// The lexers chroma's patched copy makes on first use (those written in
// Go over embedded XML, and the embedded ones) highlight as before: each
// code block's two words are drawn in different colours.
func TestLazyLexersHighlight(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	r.SetHasDarkBackground(true)
	m := New(r)
	for _, c := range []struct{ lang, code, a, b string }{
		{"common-lisp", "(defun twice (x) (* 2 x))", "defun", "twice"},
		{"emacs-lisp", "(defun twice (x) (* 2 x))", "defun", "twice"},
		{"html", `<p class="note">hello</p>`, "class", "note"},
		{"go-html-template", `<p>{{ if .Ok }}yes{{ end }}</p>`, "if", "yes"},
		{"go-text-template", `{{ range .Items }}item{{ end }}`, "range", "item"},
		{"python", "def twice(x):\n    return 2 * x", "def", "twice"},
	} {
		out, err := m.Render("```"+c.lang+"\n"+c.code+"\n```\n", 80)
		if err != nil {
			t.Fatal(err)
		}
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(ansi.Strip(l), c.a) {
				line = l
			}
		}
		if a, b := colourOf(line, c.a), colourOf(line, c.b); a == "" || b == "" || a == b {
			t.Errorf("%s: %q and %q are not coloured apart (%q, %q) in %q", c.lang, c.a, c.b, a, b, line)
		}
	}
}
