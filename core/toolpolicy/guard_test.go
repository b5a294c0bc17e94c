package toolpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/toolpolicy/guardtest"
)

// The write that would complete a git directory's shape asks, whichever
// of its parts comes last; a folder that holds only some of them does not.
func TestWritesThatPlantARepositoryAsk(t *testing.T) {
	cases := []struct {
		have  []string // existing entries; a trailing / is a folder
		write string
		asks  bool
	}{
		{[]string{"v/HEAD", "v/objects/", "v/refs/"}, "v/config", true},
		{[]string{"v/config", "v/objects/", "v/refs/"}, "v/HEAD", true},
		{[]string{"v/HEAD", "v/objects/"}, "v/refs/heads/main", true},
		{[]string{"v/HEAD", "v/refs/"}, "v/objects/ab/cdef", true},
		{[]string{"HEAD", "objects/", "refs/"}, "config", true}, // the project folder itself
		{[]string{"v/HEAD"}, "v/config", false},
		{[]string{"v/objects/", "v/refs/"}, "v/config", false},
		{[]string{"src/HEAD", "src/objects/", "src/refs/"}, "docs/readme.md", false},
	}
	for _, c := range cases {
		root := guardtest.TempRoot(t)
		for _, h := range c.have {
			p := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(h, "/")))
			if strings.HasSuffix(h, "/") {
				os.MkdirAll(p, 0o755)
			} else {
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte("x"), 0o644)
			}
		}
		why := RunOnUse(root, filepath.Join(root, filepath.FromSlash(c.write)))
		if (why != "") != c.asks {
			t.Errorf("have %v, write %s: reason %q, want asks=%v", c.have, c.write, why, c.asks)
		}
	}
}

// A repository whose config moves its hooks (core.hooksPath) has them
// asked about like .git/hooks.
func TestHooksPathAsks(t *testing.T) {
	root := guardtest.TempRoot(t)
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n\tbare = false\n\thooksPath = .githooks # team hooks\n[user]\n\tname = x\n"), 0o644)
	if why := RunOnUse(root, filepath.Join(root, ".githooks", "pre-commit")); why == "" {
		t.Error("a write to core.hooksPath's folder does not ask")
	}
	if why := RunOnUse(root, filepath.Join(root, "src", "main.go")); why != "" {
		t.Errorf("an ordinary file asks: %s", why)
	}
	for config, want := range map[string]string{
		"[Core]\n  HooksPath = \"tools/hooks\"\n[core \"x\"]\n\thooksPath = other\n": "tools/hooks",
		"[core] hooksPath = same-line ; comment\n":                                   "same-line",
		"[core]\n\thooksPath = \"with # hash\" # comment\n":                          "with # hash",
		"[core]\n\thooksPath = a\\\\b  c\n[core.sub]\n\thooksPath = x\n":             "a\\b  c",
	} {
		if got, _ := gitConfigValue(config, "core", "hooksPath"); got != want {
			t.Errorf("hooksPath of %q = %q, want %q", config, got, want)
		}
	}
}
