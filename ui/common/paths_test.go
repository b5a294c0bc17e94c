package common

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestShortPath(t *testing.T) {
	t.Parallel()
	const deep = "~/src/very/deeply/nested/in/the/projects/shop"
	cases := []struct {
		path  string
		width int
		want  string
	}{
		{deep, 80, deep}, // fits: as it is
		{deep, len(deep), deep},
		// The last folders whole, then the folders after the first.
		{deep, 28, "~/src/…/in/the/projects/shop"},
		{deep, 27, "~/…/in/the/projects/shop"},
		{deep, 20, "~/…/projects/shop"},
		{deep, 10, "~/…/shop"},
		{"/tmp/trial/a/b/c/worktrees/pi-00deb16d", 29, "/tmp/…/worktrees/pi-00deb16d"},
		{"/tmp/x/y", 7, "…/y"},
		// A single very long last element: the first goes, then its middle.
		{"~/src/a-very-long-folder-name-for-the-shop-backend-v2", 30, "…/a-very-long-f…hop-backend-v2"},
		{"~/src/a-very-long-folder-name-for-the-shop-backend-v2", 4, "a…v2"},
		{"a-very-long-relative-name", 9, "a-ve…name"},
		// Tiny widths.
		{deep, 1, "…"},
		{deep, 0, ""},
		{deep, -3, ""},
		{"~/ab", 1, "…"},
		// Wide runes count two cells and are never split.
		{"~/项目/很长的文件夹名字/商店", 12, "~/…/商店"},
		{"~/项目/很长的文件夹名字", 9, "…/很长…字"},
		{"~/src/🛒-shop/backend", 15, "~/src/…/backend"},
		{"~/src/🛒-shop/backend", 14, "~/…/backend"},
		// A trailing slash stays: it is still a folder.
		{"~/src/very/deeply/nested/", 12, "~/…/nested/"},
		// Controls are shown, never sent.
		{"~/src/evil\x1b[2J/x", 80, `~/src/evil\x1b[2J/x`},
	}
	for _, c := range cases {
		got := ShortPath(c.path, c.width)
		if got != c.want {
			t.Errorf("ShortPath(%q, %d) = %q, want %q", c.path, c.width, got, c.want)
		}
		if c.width >= 0 && ansi.StringWidth(got) > c.width {
			t.Errorf("ShortPath(%q, %d) = %q: %d cells", c.path, c.width, got, ansi.StringWidth(got))
		}
	}
}

// FuzzShortPath checks what every caller relies on: the result fits,
// is the path itself when the path fits, keeps the last element whole
// whenever "…/last" fits, is valid UTF-8 and holds no control character.
func FuzzShortPath(f *testing.F) {
	for _, s := range []string{"~/src/very/deeply/nested/in/the/projects/shop", "/tmp/a", "项目/商店/🛒", "a//b/", "/", "~", "x\x1by/z\u0301", ""} {
		f.Add(s, 12)
	}
	f.Fuzz(func(t *testing.T, p string, width int) {
		width %= 200
		got := ShortPath(p, width)
		if w := ansi.StringWidth(got); w > max(width, 0) {
			t.Fatalf("ShortPath(%q, %d) = %q is %d cells", p, width, got, w)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("ShortPath(%q, %d) = %q is not UTF-8", p, width, got)
		}
		if strings.ContainsFunc(got, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
			t.Fatalf("ShortPath(%q, %d) = %q holds a control character", p, width, got)
		}
		v := VisibleLine(p)
		if ansi.StringWidth(v) <= width && got != v {
			t.Fatalf("ShortPath(%q, %d) = %q, but the path fits", p, width, got)
		}
		if i := strings.LastIndexByte(strings.TrimSuffix(v, "/"), '/'); i >= 0 && v != got {
			last := v[i+1:]
			if ansi.StringWidth("…/"+last) <= width && !strings.HasSuffix(got, "/"+last) {
				t.Fatalf("ShortPath(%q, %d) = %q lost the last element %q", p, width, got, last)
			}
		}
	})
}
