package common

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// renderSafe renders s as the chat does: MarkdownSafe, glamour without
// colour, SafeANSI.
func renderSafe(t testing.TB, s string) string {
	t.Helper()
	tr, err := glamour.NewTermRenderer(glamour.WithStyles(styles.NoTTYStyleConfig), glamour.WithWordWrap(400))
	if err != nil {
		t.Fatal(err)
	}
	out, err := tr.Render(MarkdownSafe(s))
	if err != nil {
		t.Fatal(err)
	}
	return SafeANSI(out)
}

// tagLike matches what a model writes in angle brackets: Vec<T>, <div>,
// </file>, <file name="x">.
var tagLike = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9]*( [a-z]+="[^"<>\x60\\*_\[\]]*")?>`)

// TestMarkdownSafeShowsAngleBrackets: text in angle brackets that goldmark
// would take for raw HTML or an autolink is drawn as written, in prose, in
// code and across code that raw HTML used to hide.
func TestMarkdownSafeShowsAngleBrackets(t *testing.T) {
	for _, c := range []struct{ in string }{
		{"Use Vec<T> or <div> here, a < b > c."},
		{"<div>\nblock html\n</div>"},
		{`<file name="/w/AGENTS.md">be brief</file>`},
		{"see <https://example.com/x> and <me@example.com>"},
		{"in code `Vec<T>` and\n\n```go\nvar m map[string]<-chan int // <b>\n```\n\n    <indented>\n"},
		{"- item <li>\n> quote <q>\n\n| a | <td> |\n|---|---|\n| <x> | y |"},
		{"<a b=\"`\"> <c> `"},
		{"already \\<escaped> and \\\\<two>"},
		{"<!-- comment --> <?php x ?> <![CDATA[ y ]]>"},
	} {
		out := renderSafe(t, c.in)
		for _, want := range tagLike.FindAllString(c.in, -1) {
			if !strings.Contains(out, want) {
				t.Errorf("%q renders without %q:\n%s", c.in, want, out)
			}
		}
		for _, want := range []string{"a < b > c", "https://example.com/x", "me@example.com", "<!-- comment -->", "<?php x ?>"} {
			if strings.Contains(c.in, want) && !strings.Contains(out, want) {
				t.Errorf("%q renders without %q:\n%s", c.in, want, out)
			}
		}
		if strings.Contains(out, `\<`) && !strings.Contains(c.in, `\\<`) && !strings.Contains(c.in, "`\\<") {
			t.Errorf("%q renders an escape's backslash:\n%s", c.in, out)
		}
		if again := MarkdownSafe(MarkdownSafe(c.in)); again != MarkdownSafe(c.in) {
			t.Errorf("MarkdownSafe is not idempotent on %q: %q", c.in, again)
		}
	}
	// Code is left alone: no backslash is added inside it.
	if out := renderSafe(t, "`a<b>` and\n\n```\n<c>\n```"); strings.Contains(out, `\`) {
		t.Errorf("code gained a backslash:\n%s", out)
	}
}

// fenceInfo returns where s has the info strings (languages) of fenced
// code blocks, which glamour does not draw.
func fenceInfo(s string) [][2]int {
	var out [][2]int
	doc := mdParser().Parse(text.NewReader([]byte(s)))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if f, ok := n.(*ast.FencedCodeBlock); ok && entering && f.Info != nil {
			out = append(out, [2]int{f.Info.Segment.Start, f.Info.Segment.Stop})
		}
		return ast.WalkContinue, nil
	})
	return out
}

func FuzzMarkdownSafe(f *testing.F) {
	for _, s := range []string{"Vec<T>", "<div>\n\n```\n<x>\n```", "`<a>` <b>", "<a b=\"`\"> <c> `", "> <q>\n- <li>", "    <pre>\n<p>", "<https://x.y>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2000 {
			return
		}
		safe := MarkdownSafe(s)
		if MarkdownSafe(safe) != safe {
			t.Fatalf("MarkdownSafe is not idempotent on %q", s)
		}
		out := renderSafe(t, s)
		// Wrapping may break a line inside a long tag; compare without
		// line breaks and the indentation of wrapped lines.
		flat := strings.Join(strings.Fields(out), " ")
		info := fenceInfo(s)
		for _, loc := range tagLike.FindAllStringIndex(s, -1) {
			if slices.ContainsFunc(info, func(r [2]int) bool { return loc[0] < r[1] && r[0] < loc[1] }) {
				continue // a fence's language is not drawn
			}
			want := s[loc[0]:loc[1]]
			if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
				t.Fatalf("%q renders without %q:\n%s", s, want, out)
			}
		}
	})
}

// BenchmarkMarkdownSafe: a long answer with generics, tags and code.
func BenchmarkMarkdownSafe(b *testing.B) {
	s := strings.Repeat("Use `Vec<T>` or Vec<T>; wrap it in <div> and compare a < b.\n\n```go\nvar m map[string]<-chan int\n```\n\n", 40)
	b.ReportAllocs()
	for b.Loop() {
		MarkdownSafe(s)
	}
}
