//go:build unix

package instructions

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// The root-chain memo is tested as the directory cache is: on real trees
// made to look settled (directories backdated, the Resolver's clock an
// hour ahead), every change made after a remembered resolution must be in
// the next one. A change is made after waitClockTick, so it gets a new
// ctime, as any change a person makes a moment later does.

func resolveRoot(t *testing.T, r *Resolver, root string) *Chain {
	t.Helper()
	c, err := r.ResolveRoot(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// memoTree is a root with AGENTS.md and a global AGENTS.md, and a caching
// Resolver that has remembered its root chain; reads counts the bytes it
// reads from instruction files.
func memoTree(t *testing.T, m Model) (tr *tree, r *Resolver, reads *int) {
	tr = newTree(t)
	tr.write("AGENTS.md", "root rules")
	tr.write(tr.agent+"/AGENTS.md", "global rules")
	backdate(t, tr.base)
	r = cachingResolver(tr, m)
	reads = new(int)
	r.readHook = func(n int) { *reads += n }
	resolveRoot(t, r, tr.root)
	return tr, r, reads
}

// An unchanged root is answered without reading a file, with the same text.
func TestRootMemoUnchanged(t *testing.T) {
	tr, r, reads := memoTree(t, anthropic)
	first := *reads
	if first == 0 {
		t.Fatal("the first resolution read nothing")
	}
	a := resolveRoot(t, r, tr.root)
	if *reads != first {
		t.Fatalf("an unchanged root was read again (%d bytes)", *reads-first)
	}
	wantLabels(t, a, "~/.pi/agent/AGENTS.md", "AGENTS.md")
	if !strings.Contains(a.Text, "root rules") || !strings.Contains(a.Text, "global rules") {
		t.Fatalf("remembered text lost a source:\n%s", a.Text)
	}
	// The copy handed out is the caller's: changing it changes no later answer.
	a.Warnings = append(a.Warnings, "mine")
	a.Sources[0].Content = "changed"
	b := resolveRoot(t, r, tr.root)
	if len(b.Warnings) != 0 || b.Sources[0].Content == "changed" {
		t.Fatalf("a caller's change reached the memo: %q %q", b.Warnings, b.Sources[0].Content)
	}
}

// Every change that can alter a root chain is seen by the next resolution.
func TestRootMemoSeesChanges(t *testing.T) {
	cases := []struct {
		name   string
		change func(tr *tree)
		labels []string
		text   string // in the new chain's text
	}{
		{"same-size-edit", func(tr *tree) { tr.write("AGENTS.md", "ROOT RULES") },
			[]string{"~/.pi/agent/AGENTS.md", "AGENTS.md"}, "ROOT RULES"},
		{"override-created", func(tr *tree) { tr.write("AGENTS.override.md", "override rules") },
			[]string{"~/.pi/agent/AGENTS.md", "AGENTS.override.md"}, "override rules"},
		{"provider-created", func(tr *tree) { tr.write("CLAUDE.md", "claude rules") },
			[]string{"~/.pi/agent/AGENTS.md", "AGENTS.md", "CLAUDE.md"}, "claude rules"},
		{"removed", func(tr *tree) { os.Remove(tr.abs("AGENTS.md")) },
			[]string{"~/.pi/agent/AGENTS.md"}, "global rules"},
		{"global-edit", func(tr *tree) { tr.write(tr.agent+"/AGENTS.md", "GLOBAL RULES") },
			[]string{"~/.pi/agent/AGENTS.md", "AGENTS.md"}, "GLOBAL RULES"},
		{"global-provider-created", func(tr *tree) { tr.write(tr.agent+"/CLAUDE.md", "global claude") },
			[]string{"~/.pi/agent/AGENTS.md", "~/.pi/agent/CLAUDE.md", "AGENTS.md"}, "global claude"},
		{"made-unreadable", func(tr *tree) { os.Chmod(tr.abs("AGENTS.md"), 0) },
			nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, r, _ := memoTree(t, anthropic)
			waitClockTick(t, tr.base)
			tc.change(tr)
			c := resolveRoot(t, r, tr.root)
			if tc.labels == nil {
				if os.Geteuid() == 0 {
					t.Skip("root reads a file without permissions")
				}
				if skipReason(c, tr.abs("AGENTS.md")) == "" {
					t.Fatalf("an unreadable AGENTS.md is not reported: %+v", c.Skipped)
				}
				return
			}
			wantLabels(t, c, tc.labels...)
			if !strings.Contains(c.Text, tc.text) {
				t.Fatalf("the change is not in the text:\n%s", c.Text)
			}
		})
	}
}

// A .claude directory's CLAUDE.md, created in an existing .claude (which
// leaves the root's timestamps alone), is seen.
func TestRootMemoDotClaude(t *testing.T) {
	tr := newTree(t)
	tr.mkdir(".claude")
	backdate(t, tr.base)
	r := cachingResolver(tr, noModel)
	wantLabels(t, resolveRoot(t, r, tr.root))
	wantLabels(t, resolveRoot(t, r, tr.root))
	waitClockTick(t, tr.base)
	tr.write(".claude/CLAUDE.md", "claude rules")
	wantLabels(t, resolveRoot(t, r, tr.root), ".claude/CLAUDE.md")
}

// Files written just now are read on every resolution: their timestamps
// could still hide a change made in the same clock tick.
func TestRootMemoFresh(t *testing.T) {
	tr := newTree(t)
	tr.write("AGENTS.md", "root rules")
	r := tr.resolver(noModel)
	written := time.Now()
	r.now = func() time.Time { return written }
	reads := 0
	r.readHook = func(n int) { reads += n }
	resolveRoot(t, r, tr.root)
	first := reads
	resolveRoot(t, r, tr.root)
	if reads != 2*first {
		t.Fatalf("a fresh root was answered from memory (%d bytes read, want %d)", reads, 2*first)
	}
}

// A chain that follows a link is resolved in full every time: a link on
// the way to the file, changed where the root's timestamps do not see it,
// is followed anew.
func TestRootMemoLink(t *testing.T) {
	tr := newTree(t)
	tr.write("docs/a/rules.md", "rules of a")
	tr.write("docs/b/rules.md", "rules of b")
	tr.symlink("a", "docs/current")
	tr.symlink("docs/current/rules.md", "AGENTS.md")
	backdate(t, tr.base)
	r := cachingResolver(tr, noModel)
	if c := resolveRoot(t, r, tr.root); !strings.Contains(c.Text, "rules of a") {
		t.Fatalf("the linked file is not in the chain:\n%s", c.Text)
	}
	if err := os.Remove(tr.abs("docs/current")); err != nil {
		t.Fatal(err)
	}
	tr.symlink("b", "docs/current")
	if c := resolveRoot(t, r, tr.root); !strings.Contains(c.Text, "rules of b") {
		t.Fatalf("a changed link on the way is not followed:\n%s", c.Text)
	}
}
