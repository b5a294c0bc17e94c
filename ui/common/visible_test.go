package common

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
)

func TestVisibleShowsWhatATerminalWouldAct(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\n\tindented", "plain text\n\tindented"},
		{"echo \x1b[8msecret\x1b[0m", `echo \x1b[8msecret\x1b[0m`},
		{"\x1b]52;c;cm0gLXJmIH4=\x07", `\x1b]52;c;cm0gLXJmIH4=\x07`},
		{"\x1b]0;innocent title\x07", `\x1b]0;innocent title\x07`},
		{"ls\rrm -rf ~", `ls\x0drm -rf ~`},
		{"a\x7fb\x00c", `a\x7fb\x00c`},
		{"csi\u009b31m", `csi\u009b31m`},
		{"if ok \u202e} ;)(lla {\u2066", `if ok \u202e} ;)(lla {\u2066`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"héllo wörld ✓", "héllo wörld ✓"},
	} {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := VisibleLine("ls -la\n\ttouch X\x1b[8m"); got != `ls -la⏎ touch X\x1b[8m` {
		t.Errorf("VisibleLine = %q", got)
	}
}

// unsafeRune returns the first character of s that a terminal would
// interpret.
func unsafeRune(s string, keepTab bool) (rune, bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return rune(s[i]), true
		case r == '\n', r == '\t' && keepTab:
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			return r, true
		}
		i += n
	}
	return 0, false
}

func FuzzVisible(f *testing.F) {
	for _, s := range []string{"", "ls -la\n\n\ntouch X", "\x1b[8m", "\x1b]52;c;aGk=\x07", "\u202e\u2066", "\xc2\x9b", "\xff", "a\r\nb\tc\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Visible(s)
		if r, bad := unsafeRune(out, true); bad {
			t.Fatalf("Visible(%q) = %q keeps %U", s, out, r)
		}
		line := VisibleLine(s)
		if r, bad := unsafeRune(line, false); bad || strings.ContainsRune(line, '\n') {
			t.Fatalf("VisibleLine(%q) = %q keeps %U", s, line, r)
		}
		// Text already visible is left alone, so applying it twice is safe.
		if again := Visible(out); again != out {
			t.Fatalf("Visible is not idempotent on %q: %q then %q", s, out, again)
		}
		// Only SGR survives SafeANSI; without ESC in the input it is Visible.
		sa := SafeANSI(s)
		for _, seq := range strings.Split(sa, "\x1b")[1:] {
			if sgrLen("\x1b"+seq) == 0 {
				t.Fatalf("SafeANSI(%q) = %q keeps a non-SGR escape", s, sa)
			}
		}
	})
}

func TestMarkdownSafeStopsCharacterReferences(t *testing.T) {
	tr, err := glamour.NewTermRenderer(glamour.WithStyles(styles.NoTTYStyleConfig), glamour.WithWordWrap(80))
	if err != nil {
		t.Fatal(err)
	}
	in := "hi &#27;[8m hidden &#x1b;]52;c;aGk=&#7; raw \x1b]0;title\x07 ok &#233; &amp;"
	out, err := tr.Render(MarkdownSafe(in))
	if err != nil {
		t.Fatal(err)
	}
	out = SafeANSI(out)
	for _, bad := range []string{"\x1b[8m", "\x1b]", "\x07"} {
		if strings.Contains(out, bad) {
			t.Errorf("rendered markdown carries %q: %q", bad, out)
		}
	}
	for _, want := range []string{"&#27;[8m", "&#x1b;]52", `\x1b]0;title\x07`, "é"} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered markdown lacks %q: %q", want, out)
		}
	}
}
