package approvals

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/store"
)

func TestMatches(t *testing.T) {
	for _, c := range []struct {
		tool, pattern, subject string
		want                   bool
	}{
		{"bash", "go test ./...", "go test ./...", true},
		{"bash", "go test ./...", "  go test ./...  ", true},
		{"bash", "go test ./...", "go test ./... -run X", false},
		{"bash", "git status", "git status", true},
		{"bash", "go test *", "go test ./pkg/...", true},
		{"bash", "go test *", "go test", true},
		{"bash", "go test:*", "go test -run TestX ./...", true},
		{"bash", "go test *", "go testx", false},
		{"bash", "go test *", "go vet ./...", false},
		{"bash", "go test *", "go test ./... ; rm -rf ~", false},
		{"bash", "go test *", "go test ./... && rm -rf ~", false},
		{"bash", "go test *", "go test ./... | sh", false},
		{"bash", "go test *", "go test $(rm -rf ~)", false},
		{"bash", "go test *", "go test `rm -rf ~`", false},
		{"bash", "go test *", "go test > ~/.bashrc", false},
		{"bash", "go test *", "go test ./...\nrm -rf ~", false},
		{"bash", "go test *", "go test ./... & rm -rf ~", false},
		{"bash", "go test *", "go test ${HOME}", false},
		{"bash", "go test *", "go test \\\nrm", false},
		// An exact rule may hold metacharacters: it matches only itself.
		{"bash", "make && make test", "make && make test", true},
		{"bash", "make && make test", "make && make test; rm -rf ~", false},
		{"bash", "go test *", "go test", true},
		{"write", "go test *", "go test", false}, // another tool
		{"write", "docs/*.md", "docs/a.md", true},
		{"write", "docs/*.md", "docs/sub/a.md", false},
		{"write", "docs/**", "docs/sub/a.md", true},
		{"write", "docs/**/*.md", "docs/a.md", true},
		{"edit", "**/*.go", "pkg/api/handler.go", true},
		{"edit", "**/*.go", "../x.go", false},
		{"edit", "notes.txt", "notes.txt", true},
		{"edit", "notes.txt", "./notes.txt", false},
		{"edit", "../*", "../x", false}, // invalid rule
		{"edit", "/etc/*", "/etc/passwd", false},
		{"read", "x", "x", false},
	} {
		r := Rule{Tool: c.tool, Pattern: c.pattern}
		if got := r.Matches(c.tool, c.subject); got != c.want {
			t.Errorf("%s %q on %q = %v, want %v", c.tool, c.pattern, c.subject, got, c.want)
		}
	}
	if (Rule{Tool: "bash", Pattern: "go test *"}).Matches("write", "go test") {
		t.Error("a bash rule covered a write")
	}
}

func TestValidate(t *testing.T) {
	for _, bad := range []Rule{
		{"bash", ""}, {"bash", " *"}, {"bash", ":*"}, {"bash", "a; b *"}, {"bash", "a $(b) *"}, {"bash", "a\nb"},
		{"bash", "go * *"}, {"write", "../x"}, {"write", "/abs"}, {"write", "a//b"}, {"write", "[x"}, {"read", "x"},
	} {
		if bad.Validate() == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, ok := range []Rule{{"bash", "go test *"}, {"bash", "git status"}, {"bash", "make && make test"}, {"edit", "docs/**"}} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

// FuzzPrefixRuleNeverMatchesMeta: whatever the rule and the command, a
// prefix rule never matches a command with shell metacharacters, and a
// match always starts with the rule's words.
func FuzzPrefixRuleNeverMatchesMeta(f *testing.F) {
	for _, s := range [][2]string{{"go test", "go test ./..."}, {"git", "git status; rm -rf ~"}, {"ls", "ls $(x)"},
		{"a", "a\nb"}, {"echo", "echo `x`"}, {"x", "x > y"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, prefix, cmd string) {
		r := Rule{Tool: ToolBash, Pattern: prefix + " *"}
		if !r.Matches(ToolBash, cmd) {
			return
		}
		if HasMeta(cmd) {
			t.Fatalf("prefix rule %q matched %q, which has metacharacters", r.Pattern, cmd)
		}
		if !strings.HasPrefix(strings.TrimSpace(cmd), strings.TrimSpace(prefix)) {
			t.Fatalf("prefix rule %q matched %q", r.Pattern, cmd)
		}
	})
}

// FuzzPathRuleStaysInside: a path rule never matches a path that is not a
// clean relative path.
func FuzzPathRuleStaysInside(f *testing.F) {
	f.Add("**", "../x")
	f.Add("docs/*", "docs/a")
	f.Fuzz(func(t *testing.T, pattern, rel string) {
		if len(pattern) > 64 {
			return
		}
		if !(Rule{Tool: ToolWrite, Pattern: pattern}).Matches(ToolWrite, rel) {
			return
		}
		for _, p := range strings.Split(rel, "/") {
			if p == "" || p == "." || p == ".." {
				t.Fatalf("%q matched %q", pattern, rel)
			}
		}
	})
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "pi-tui.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestStoreKeepsRulesAndWritesACopy: rules are kept in the store, once
// each, and copied next to the project's settings; deleting the last
// removes the copy.
func TestStoreKeepsRulesAndWritesACopy(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := New(openStore(t))
	r := Rule{Tool: ToolBash, Pattern: "go test *"}
	for range 2 {
		if err := s.Add(ctx, root, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(ctx, root, Rule{Tool: ToolBash, Pattern: "x; y *"}); err == nil {
		t.Fatal("an invalid rule was kept")
	}
	got, err := s.Rules(ctx, root)
	if err != nil || len(got) != 1 || got[0] != r {
		t.Fatalf("rules = %v, %v", got, err)
	}
	data, err := os.ReadFile(ExportPath(root))
	if err != nil || !strings.Contains(string(data), `"go test *"`) || !strings.Contains(string(data), "never read") {
		t.Fatalf("copy: %s, %v", data, err)
	}
	all, _ := s.All(ctx)
	if len(all[root]) != 1 {
		t.Fatalf("all = %v", all)
	}
	if err := s.Delete(ctx, root, r); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Rules(ctx, root); len(got) != 0 {
		t.Fatalf("after delete: %v", got)
	}
	if _, err := os.Stat(ExportPath(root)); !os.IsNotExist(err) {
		t.Fatalf("the copy outlived its last rule: %v", err)
	}
}

// TestShippedCopyApprovesNothing: a repository that ships its own
// .pi/pi-tui-approvals.json gets no rule from it; and a link planted at the
// copy's name is replaced, not written through.
func TestShippedCopyApprovesNothing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".pi"), 0o755)
	shipped, _ := json.Marshal(exported{Rules: []Rule{{Tool: ToolBash, Pattern: "rm *"}}})
	os.WriteFile(ExportPath(root), shipped, 0o644)
	s := New(openStore(t))
	if got, err := s.Rules(ctx, root); err != nil || len(got) != 0 {
		t.Fatalf("a shipped file gave rules: %v, %v", got, err)
	}
	victim := filepath.Join(root, "victim.go")
	os.WriteFile(victim, []byte("package x\n"), 0o644)
	os.Remove(ExportPath(root))
	os.Symlink(victim, ExportPath(root))
	if err := s.Add(ctx, root, Rule{Tool: ToolBash, Pattern: "ls"}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "package x\n" {
		t.Fatalf("the copy was written through a link: %s", data)
	}
}

// TestRepositorysOwnFileIsLeftAlone: a file at the copy's name that pi-tui
// did not write (one the repository tracks) is neither overwritten nor
// removed, and the rules work all the same; pi-tui's own copy, marked as
// such (or written before the marker), is kept up to date.
func TestRepositorysOwnFileIsLeftAlone(t *testing.T) {
	ctx := context.Background()
	s := New(openStore(t))
	r := Rule{Tool: ToolBash, Pattern: "go test *"}
	for _, shipped := range []string{
		`{"rules": [{"tool": "bash", "pattern": "make *"}]}` + "\n",
		"not json at all\n",
		`{"writtenBy": "someone else", "rules": []}`,
	} {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, ".pi"), 0o755)
		os.WriteFile(ExportPath(root), []byte(shipped), 0o644)
		if err := s.Add(ctx, root, r); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(ExportPath(root)); string(data) != shipped {
			t.Fatalf("the repository's file was overwritten: %s", data)
		}
		got, err := s.Rules(ctx, root)
		if err != nil || len(got) != 1 || got[0] != r {
			t.Fatalf("rules = %v, %v", got, err)
		}
		if _, ok := Covers(got, ToolBash, "go test ./..."); !ok {
			t.Fatal("the rule does not apply")
		}
		if err := s.Delete(ctx, root, r); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(ExportPath(root)); string(data) != shipped {
			t.Fatalf("the repository's file was removed or changed: %q", data)
		}
	}

	for _, own := range []string{"", legacyNote} {
		root := t.TempDir()
		if own != "" {
			os.MkdirAll(filepath.Join(root, ".pi"), 0o755)
			old, _ := json.Marshal(map[string]any{"note": own, "rules": []Rule{}})
			os.WriteFile(ExportPath(root), old, 0o644)
		}
		if err := s.Add(ctx, root, r); err != nil {
			t.Fatal(err)
		}
		var e exported
		data, _ := os.ReadFile(ExportPath(root))
		if json.Unmarshal(data, &e) != nil || e.WrittenBy != "pi-tui" || len(e.Rules) != 1 || !strings.Contains(e.Note, "edits to it are ignored") {
			t.Fatalf("pi-tui's copy was not written: %s", data)
		}
		if err := s.Add(ctx, root, Rule{Tool: ToolBash, Pattern: "ls"}); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(ExportPath(root)); !strings.Contains(string(data), `"ls"`) {
			t.Fatalf("pi-tui's own copy was not updated: %s", data)
		}
	}
}
