//go:build unix

package registry

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A hostile repository cannot stall, crash or fool a fingerprint: a
// .git/config that is a FIFO, huge, binary, or includes another file,
// a .git file pointing at a FIFO, and instruction files that are FIFOs.
// None of them lets git run, and adding such a folder still works.
func TestHostileGitFolders(t *testing.T) {
	ctx := context.Background()
	base := tempBase(t)
	mk := func(name string, setup func(dir string)) string {
		dir := filepath.Join(base, name)
		os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
		setup(dir)
		return dir
	}
	huge := make([]byte, maxGitConfig+1)
	binary := make([]byte, 64<<10)
	rand.Read(binary)
	cases := map[string]string{
		"fifo": mk("fifo", func(d string) { syscall.Mkfifo(filepath.Join(d, ".git", "config"), 0o644) }),
		"huge": mk("huge", func(d string) {
			copy(huge, "[remote \"o\"]\n\turl = https://example.com/huge\n")
			os.WriteFile(filepath.Join(d, ".git", "config"), huge, 0o644)
		}),
		"binary": mk("binary", func(d string) { os.WriteFile(filepath.Join(d, ".git", "config"), binary, 0o644) }),
		"include": mk("include", func(d string) {
			syscall.Mkfifo(filepath.Join(d, "pipe"), 0o644)
			os.WriteFile(filepath.Join(d, ".git", "config"), []byte("[include]\n\tpath = ../pipe\n[remote \"o\"]\n\turl = https://example.com/inc\n"), 0o644)
		}),
		"gitfile": func() string {
			d := filepath.Join(base, "gitfile")
			os.MkdirAll(d, 0o755)
			syscall.Mkfifo(filepath.Join(base, "elsewhere"), 0o644)
			os.WriteFile(filepath.Join(d, ".git"), []byte("gitdir: ../elsewhere\n"), 0o644)
			syscall.Mkfifo(filepath.Join(d, "AGENTS.md"), 0o644)
			return d
		}(),
	}
	reg, _ := newRegistry(t)
	// A git that leaves a mark when it is run.
	fake, mark := filepath.Join(base, "git"), filepath.Join(base, "git-ran")
	os.WriteFile(fake, []byte("#!/bin/sh\n: > '"+mark+"'\n"), 0o755)
	reg.SetGit(fake)
	for name, dir := range cases {
		fp, g := readFingerprint(dir)
		if g.runnable {
			t.Errorf("%s: judged safe to run git in", name)
		}
		if name == "include" && (len(fp.Remotes) != 1 || fp.Remotes[0] != "https://example.com/inc") {
			t.Errorf("include: remotes %q", fp.Remotes)
		}
		if name != "include" && len(fp.Remotes) != 0 {
			t.Errorf("%s: remotes %q", name, fp.Remotes)
		}
		if name == "gitfile" && fp.Instructions != "" {
			t.Errorf("a FIFO AGENTS.md was hashed")
		}
		if _, _, err := reg.Add(ctx, dir, "", false); err != nil {
			t.Errorf("%s: add: %v", name, err)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("git was run in a hostile repository")
	}
}
