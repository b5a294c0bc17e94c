package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
)

// The UI starts on the project holding the folder it is opened in: the
// deepest registered root that is the folder or one of its parents, found
// through links, archived projects included; nothing outside them.
func TestHoldingFindsTheDeepestRoot(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pl := paths.Places{Home: base, AgentDir: filepath.Join(base, "agent"), DataDir: filepath.Join(base, "data")}
	ctx := context.Background()
	h, err := host.Open(ctx, pl, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	outer, inner := filepath.Join(base, "src", "mono"), filepath.Join(base, "src", "mono", "packages", "api")
	for _, d := range []string{filepath.Join(inner, "handlers"), filepath.Join(outer, "docs"), filepath.Join(base, "src", "monorail"), filepath.Join(base, "elsewhere")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(inner, filepath.Join(base, "api-link")); err != nil {
		t.Fatal(err)
	}
	po, _, err := h.Projects.Add(ctx, outer, "mono", false)
	if err != nil {
		t.Fatal(err)
	}
	pi, _, err := h.Projects.Add(ctx, inner, "api", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Projects.SetArchived(ctx, pi.ID, true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{outer, po.ID},
		{filepath.Join(outer, "docs"), po.ID},
		{inner, pi.ID},
		{filepath.Join(inner, "handlers"), pi.ID},
		{filepath.Join(base, "api-link"), pi.ID},
		{filepath.Join(base, "src", "monorail"), ""}, // a sibling sharing the prefix
		{filepath.Join(base, "elsewhere"), ""},
		{"/", ""},
	} {
		p, found, err := holding(ctx, h.Projects, c.dir)
		switch {
		case err != nil:
			t.Errorf("%s: %v", c.dir, err)
		case c.want == "" && found:
			t.Errorf("%s: held by %s (%s), want none", c.dir, p.Name, p.Root)
		case c.want != "" && (!found || p.ID != c.want):
			t.Errorf("%s: held by %q (found %t), want %s", c.dir, p.ID, found, c.want)
		}
	}
}
