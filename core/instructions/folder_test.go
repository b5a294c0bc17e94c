package instructions

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A target in another folder of a project gets that folder's own chain,
// each file labelled with the folder's name, so a web:AGENTS.md is never
// taken for the primary root's AGENTS.md; links and paths that leave the
// folder are refused as they are for a root.
func TestResolveInFolderIsThatFoldersOwnChainLabelled(t *testing.T) {
	ctx := context.Background()
	tr := newTree(t)
	tr.write(filepath.Join(tr.agent, "AGENTS.md"), "global rules")
	tr.write("AGENTS.md", "primary rules")
	web := tr.mkdir(filepath.Join(tr.base, "web"))
	tr.write(filepath.Join(web, "AGENTS.md"), "web rules")
	tr.write(filepath.Join(web, "packages", "ui", "CLAUDE.md"), "ui rules")
	tr.write(filepath.Join(web, "packages", "ui", "x.ts"), "x")
	tr.symlink(tr.root, filepath.Join(web, "to-primary"))
	r := tr.resolver(anthropic)
	f := Folder{Root: web, Name: "web"}

	c, err := r.ResolveInFolder(ctx, f, filepath.Join(web, "packages", "ui", "x.ts"))
	if err != nil {
		t.Fatal(err)
	}
	wantLabels(t, c, "~/.pi/agent/AGENTS.md", "web:AGENTS.md", "web:packages/ui/CLAUDE.md")
	if c.Root != web || c.Folder != "web" || c.Fallback {
		t.Errorf("chain root %s folder %q fallback %v", c.Root, c.Folder, c.Fallback)
	}
	if !strings.Contains(c.Text, `## "web:AGENTS.md"`) || strings.Contains(c.Text, "primary rules") {
		t.Errorf("text:\n%s", c.Text)
	}
	// Relative to the folder.
	rel, _ := r.ResolveInFolder(ctx, f, "packages/ui/")
	wantLabels(t, rel, "~/.pi/agent/AGENTS.md", "web:AGENTS.md", "web:packages/ui/CLAUDE.md")
	// Out of the folder, by .. or through a link: the folder's root chain.
	for _, target := range []string{"../proj/x.go", filepath.Join(web, "to-primary", "x.go")} {
		c, _ := r.ResolveInFolder(ctx, f, target)
		wantLabels(t, c, "~/.pi/agent/AGENTS.md", "web:AGENTS.md")
		if !c.Fallback || len(c.Warnings) == 0 {
			t.Errorf("%s: fallback %v warnings %q", target, c.Fallback, c.Warnings)
		}
	}
	// Untrusted: the global sources alone.
	g, err := r.ResolveGlobal(ctx, f, filepath.Join(web, "packages", "ui", "x.ts"))
	if err != nil {
		t.Fatal(err)
	}
	wantLabels(t, g, "~/.pi/agent/AGENTS.md")
	if g.Folder != "web" || strings.Contains(g.Text, "web rules") {
		t.Errorf("global chain: %+v", g)
	}
	// The primary root's chains are as they were, and not taken from a
	// memo of the folder's.
	wantLabels(t, tr.target(anthropic, "x.go"), "~/.pi/agent/AGENTS.md", "AGENTS.md")
	if c, _ := r.ResolveRoot(ctx, web); c.Folder != "" || labels(c)[1] != "AGENTS.md" {
		t.Errorf("root chain of the folder as a root: %q %q", c.Folder, labels(c))
	}
}
