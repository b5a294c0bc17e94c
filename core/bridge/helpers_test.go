package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// folderChain is a Preflighter over real files: the chain of a target is
// the AGENTS.md of each folder from the root down to the target's, the
// root's in the system prompt, the nested ones delivered.
type folderChain struct {
	root    string
	trusted bool
}

func (f folderChain) Preflight(_ context.Context, target string) (toolpolicy.Claim, error) {
	canon, err := confine.Path(f.root, target)
	if err != nil {
		return toolpolicy.Claim{}, err
	}
	dir := canon
	if fi, err := os.Stat(canon); err != nil || !fi.IsDir() {
		dir = filepath.Dir(canon)
	}
	c := toolpolicy.Claim{Base: []string{"AGENTS.md"}, Labels: []string{"AGENTS.md"}, Deliver: f.trusted, Untrusted: !f.trusted}
	rel, _ := filepath.Rel(f.root, dir)
	cur := f.root
	if rel != "." {
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			cur = filepath.Join(cur, part)
			cf, ok := readContext(f.root, filepath.Join(cur, "AGENTS.md"))
			if !ok {
				continue
			}
			if !f.trusted {
				c.Withheld = append(c.Withheld, cf.Label)
				continue
			}
			c.Labels = append(c.Labels, cf.Label)
			c.Sources = append(c.Sources, cf)
		}
	}
	return c, nil
}

func (f folderChain) ContextFile(_ context.Context, path string) (toolpolicy.ContextFile, bool, error) {
	if filepath.Base(path) != "AGENTS.md" || filepath.Dir(path) == f.root {
		return toolpolicy.ContextFile{}, false, nil
	}
	cf, ok := readContext(f.root, path)
	return cf, ok, nil
}

func readContext(root, path string) (toolpolicy.ContextFile, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return toolpolicy.ContextFile{}, false
	}
	sum := sha256.Sum256(b)
	rel, _ := filepath.Rel(root, path)
	cf := toolpolicy.ContextFile{Label: filepath.ToSlash(rel), Path: path, Digest: hex.EncodeToString(sum[:8]), Content: string(b), Shown: len(b), Bytes: len(b)}
	if len(b) > instructions.DeliveryFileBytes {
		// The host's rule (core/runtimes' proxy): 16 KiB per file, cut
		// with the note the system prompt uses.
		cf.Content = instructions.Cut(cf.Content, instructions.DeliveryFileBytes)
		cf.Truncated, cf.Shown = true, len(cf.Content)
		cf.Content += "\n\n" + instructions.TruncationNote(instructions.Source{Label: cf.Label, ShownBytes: cf.Shown, Bytes: cf.Bytes})
	}
	return cf, true
}

// project makes a root with a root AGENTS.md, a nested sub/AGENTS.md, a
// file under sub and a secret in a sibling folder outside the root.
func project(t *testing.T) (root string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "proj")
	write(t, filepath.Join(root, "AGENTS.md"), "Root rules.\n")
	write(t, filepath.Join(root, "sub", "AGENTS.md"), "NESTED-RULES: tabs only.\n")
	write(t, filepath.Join(root, "sub", "file.txt"), "hello from sub\n")
	write(t, filepath.Join(root, "top.txt"), "top file\n")
	write(t, filepath.Join(base, "outside", "secret.txt"), "SECRET\n")
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
