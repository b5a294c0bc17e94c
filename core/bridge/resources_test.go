package bridge

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The resources pi gates on trust are found as pi finds them: the gated
// .pi entries (a folder by its entries), not a bare .pi nor other files
// in it, and .agents/skills above the project but not the home's.
func TestProjectResourcesAsPiFindsThem(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "work", "proj")
	for _, f := range []string{".pi/settings.json", ".pi/extensions/x.ts", ".pi/extensions/y/index.ts", ".pi/notes.txt",
		".pi/SYSTEM.md", "../.agents/skills/s/SKILL.md", "../../.agents/skills/mine/SKILL.md"} {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	os.MkdirAll(filepath.Join(root, ".pi", "prompts"), 0o755)
	got := ProjectResources(root, home)
	want := []string{".pi/settings.json", ".pi/extensions/x.ts", ".pi/extensions/y", ".pi/prompts/", ".pi/SYSTEM.md", "../.agents/skills/s"}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	bare := filepath.Join(home, "bare")
	os.MkdirAll(filepath.Join(bare, ".pi"), 0o755)
	if got := ProjectResources(bare, home); got != nil {
		t.Errorf("a bare .pi gives %q", got)
	}
}
