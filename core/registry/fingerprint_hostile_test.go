package registry

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The fingerprint's one git call runs none of the programs a
// repository's own .git/config names (filters, signing, fsmonitor,
// hooks, ssh, alternate refs), and still reads the root commit.
func TestFingerprintRunsNoProgramOfTheRepository(t *testing.T) {
	ctx := context.Background()
	reg, _ := newRegistry(t)
	base := tempBase(t)
	dir, marks := filepath.Join(base, "shop"), filepath.Join(base, "marks")
	makeRepo(t, dir, "git@example.com:me/shop.git")
	os.MkdirAll(marks, 0o755)
	hook := filepath.Join(base, "hook")
	os.WriteFile(hook, []byte("#!/bin/sh\ntouch '"+filepath.Join(marks, "hook-or-program")+"'\n"), 0o755)
	for _, kv := range [][2]string{
		{"filter.evil.clean", "touch '" + filepath.Join(marks, "clean") + "'; cat"},
		{"filter.evil.smudge", "touch '" + filepath.Join(marks, "smudge") + "'; cat"},
		{"core.fsmonitor", hook}, {"core.hooksPath", base}, {"gpg.program", hook}, {"log.showSignature", "true"},
		{"core.alternateRefsCommand", hook}, {"core.sshCommand", hook},
	} {
		cmd := exec.Command("git", "config", kv[0], kv[1])
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git config: %v %s", err, out)
		}
	}
	for _, h := range []string{"reference-transaction", "post-checkout"} {
		os.Symlink(hook, filepath.Join(base, h))
	}
	os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("* filter=evil\n"), 0o644)
	p, _, err := reg.Add(ctx, dir, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if fp, _, _ := reg.Fingerprint(ctx, p.ID); len(fp.Roots) != 1 {
		t.Errorf("root commits not read: %+v", fp)
	}
	if ents, _ := os.ReadDir(marks); len(ents) > 0 {
		t.Errorf("the repository's config ran %s", ents[0].Name())
	}
}
