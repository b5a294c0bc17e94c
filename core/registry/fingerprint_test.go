package registry

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// makeRepo makes a git repository at dir with one commit and the given
// remote, with git as a user would run it (but no user config).
func makeRepo(t *testing.T, dir, remote string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: root commits cannot be read")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "README"), []byte("hello"), 0o644)
	for _, args := range [][]string{
		{"init", "-q"},
		{"remote", "add", "origin", remote},
		{"add", "README"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "first"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

func tempBase(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// A git project moved with os.Rename is recognised at its new place by
// its remote and first commit, even renamed and without instruction
// files; a second clone elsewhere, while the first is still there, is
// not taken for it.
func TestMovedGitRepositoryMatchesItsMissingProject(t *testing.T) {
	ctx := context.Background()
	reg, _ := newRegistry(t)
	base := tempBase(t)
	old := filepath.Join(base, "src", "shop")
	makeRepo(t, old, "git@example.com:me/shop.git")
	p, _, err := reg.Add(ctx, old, "", false)
	if err != nil {
		t.Fatal(err)
	}
	fp, found, err := reg.Fingerprint(ctx, p.ID)
	if err != nil || !found || len(fp.Roots) != 1 || len(fp.Remotes) != 1 || fp.Remotes[0] != "git@example.com:me/shop" {
		t.Fatalf("fingerprint at add: %+v found=%v err=%v", fp, found, err)
	}

	clone := filepath.Join(base, "other", "shop-copy")
	cmd := exec.Command("git", "clone", "-q", old, clone)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clone: %v %s", err, out)
	}
	// The clone's origin is the first folder; make it the same remote.
	os.WriteFile(filepath.Join(clone, ".git", "config"), []byte("[remote \"origin\"]\n\turl = git@example.com:me/shop\n"), 0o644)
	if m, ok, err := reg.MatchMissing(ctx, clone); ok || err != nil {
		t.Fatalf("a clone matched a project whose folder is there: %+v %v", m, err)
	}

	moved := filepath.Join(base, "work", "storefront")
	os.MkdirAll(filepath.Dir(moved), 0o755)
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	m, ok, err := reg.MatchMissing(ctx, moved)
	if err != nil || !ok || m.Project.ID != p.ID || m.Reason != ReasonGit {
		t.Fatalf("moved repository: %+v ok=%v err=%v", m, ok, err)
	}
	// Relocated, it is no longer missing and nothing matches any more;
	// its fingerprint now names the new folder.
	if _, err := reg.Relocate(ctx, p.ID, moved, RelocateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := reg.MatchMissing(ctx, clone); ok {
		t.Error("after relocating, the clone still matches")
	}
	if fp, _, _ := reg.Fingerprint(ctx, p.ID); fp.Base != "storefront" {
		t.Errorf("fingerprint after relocate: %+v", fp)
	}
}

// Without git, a repository's remote alone is not enough; the folder
// name and the instruction files still are.
func TestWithoutGitTheNameAndInstructionsMatch(t *testing.T) {
	ctx := context.Background()
	reg, _ := newRegistry(t)
	reg.SetGit("")
	base := tempBase(t)
	old := filepath.Join(base, "a", "api")
	os.MkdirAll(filepath.Join(old, ".git"), 0o755)
	os.WriteFile(filepath.Join(old, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://example.com/api.git/\n"), 0o644)
	os.WriteFile(filepath.Join(old, "AGENTS.md"), []byte("Use tabs."), 0o644)
	p, _, err := reg.Add(ctx, old, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if fp, _, _ := reg.Fingerprint(ctx, p.ID); len(fp.Roots) != 0 || fp.Instructions == "" || fp.Remotes[0] != "https://example.com/api" {
		t.Fatalf("fingerprint without git: %+v", fp)
	}
	moved := filepath.Join(base, "b", "api")
	os.MkdirAll(filepath.Dir(moved), 0o755)
	os.Rename(old, moved)
	if m, ok, _ := reg.MatchMissing(ctx, moved); !ok || m.Reason != ReasonInstructions || m.Project.ID != p.ID {
		t.Fatalf("same name and instructions: %+v %v", m, ok)
	}
	// Another name, or other instructions, is another project.
	renamed := filepath.Join(base, "b", "api2")
	os.Rename(moved, renamed)
	if _, ok, _ := reg.MatchMissing(ctx, renamed); ok {
		t.Error("a folder with another name matched")
	}
	os.Rename(renamed, moved)
	os.WriteFile(filepath.Join(moved, "AGENTS.md"), []byte("Use spaces."), 0o644)
	if _, ok, _ := reg.MatchMissing(ctx, moved); ok {
		t.Error("other instructions matched")
	}
}

// Two folders that share only a name and have no instruction files are
// not one project; a removed project's fingerprint goes with it.
func TestEmptyFoldersDoNotMatchAndRemoveForgets(t *testing.T) {
	ctx := context.Background()
	reg, st := newRegistry(t)
	base := tempBase(t)
	old := filepath.Join(base, "a", "notes")
	os.MkdirAll(old, 0o755)
	p, _, _ := reg.Add(ctx, old, "", false)
	os.Remove(old)
	other := filepath.Join(base, "b", "notes")
	os.MkdirAll(other, 0o755)
	if _, ok, _ := reg.MatchMissing(ctx, other); ok {
		t.Error("two empty folders called notes matched")
	}
	if err := reg.Remove(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if kv, _ := st.KVNamespace(ctx, FingerprintNamespace); len(kv) != 0 {
		t.Errorf("fingerprints left after remove: %v", kv)
	}
}

// Projects registered before fingerprints existed get one on the first
// refresh; git runs at most as often as allowed, and a refresh that
// finds nothing changed writes nothing.
func TestRefreshFingerprintsRecordsOldProjects(t *testing.T) {
	ctx := context.Background()
	reg, st := newRegistry(t)
	base := tempBase(t)
	var list []Project
	for _, n := range []string{"one", "two"} {
		dir := filepath.Join(base, n)
		makeRepo(t, dir, "https://example.com/"+n)
		p, _, err := reg.Add(ctx, dir, "", false)
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, p)
	}
	// As an older pi-tui left them: no fingerprints.
	for _, p := range list {
		reg.forgetFingerprint(ctx, p.ID)
	}
	reg.RefreshFingerprints(ctx, list, 1)
	withRoots := 0
	for _, p := range list {
		fp, found, _ := reg.Fingerprint(ctx, p.ID)
		if !found || len(fp.Remotes) != 1 {
			t.Fatalf("%s: %+v found=%v", p.Name, fp, found)
		}
		if len(fp.Roots) == 1 {
			withRoots++
		}
	}
	if withRoots != 1 {
		t.Errorf("git ran for %d projects, allowed 1", withRoots)
	}
	before, _, _ := st.GetKV(ctx, FingerprintNamespace, list[0].ID)
	reg.RefreshFingerprints(ctx, list, 0)
	after, _, _ := st.GetKV(ctx, FingerprintNamespace, list[0].ID)
	if before.Value != after.Value {
		t.Errorf("a refresh without git lost what git found: %s → %s", before.Value, after.Value)
	}
}

func TestParseGitConfig(t *testing.T) {
	remotes, includes := parseGitConfig([]byte(`# a comment
[core]
	bare = false
[remote "origin"]
	url = "git@example.com:me/a.git" ; comment
	fetch = +refs/heads/*:refs/remotes/origin/*
[Remote "up"] URL = https://example.com/a/
[branch "main"]
	url = not-a-remote
[remote "dup"]
	url = https://example.com/a.git
`))
	want := []string{"git@example.com:me/a", "https://example.com/a"}
	if strings.Join(remotes, " ") != strings.Join(want, " ") || includes {
		t.Errorf("remotes %q includes %v", remotes, includes)
	}
	if _, inc := parseGitConfig([]byte("[includeIf \"gitdir:~/\"]\n\tpath = x\n")); !inc {
		t.Error("includeIf not seen")
	}
	if r, _ := parseGitConfig([]byte("[remote \"x\"]\n\turl = a\x1bb\n")); len(r) != 0 {
		t.Errorf("a URL with control characters was kept: %q", r)
	}
}

// BenchmarkMatchMissing2000 is the check `projects add` and the add
// dialog make before adding: 2,000 projects with fingerprints, 200 of
// them missing, none matching the new folder (the common case).
func BenchmarkMatchMissing2000(b *testing.B) {
	ctx := context.Background()
	reg, _ := newRegistry(b)
	reg.SetGit("")
	base, _ := filepath.EvalSymlinks(b.TempDir())
	for i := range 2000 {
		dir := filepath.Join(base, "src", fmt.Sprintf("p%04d", i))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(fmt.Sprintf("rules %d", i)), 0o644)
		if _, _, err := reg.Add(ctx, dir, "", false); err != nil {
			b.Fatal(err)
		}
		if i%10 == 0 {
			os.RemoveAll(dir)
		}
	}
	fresh := filepath.Join(base, "new", "p0001")
	os.MkdirAll(fresh, 0o755)
	os.WriteFile(filepath.Join(fresh, "AGENTS.md"), []byte("other rules"), 0o644)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := reg.MatchMissing(ctx, fresh); ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkRefreshFingerprint is the cheap refresh of one present
// project with a git remote, whose root commits are already recorded.
func BenchmarkRefreshFingerprint(b *testing.B) {
	ctx := context.Background()
	reg, _ := newRegistry(b)
	base, _ := filepath.EvalSymlinks(b.TempDir())
	dir := filepath.Join(base, "shop")
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@example.com:me/shop.git\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Run the tests first."), 0o644)
	reg.SetGit("")
	p, _, err := reg.Add(ctx, dir, "", false)
	if err != nil {
		b.Fatal(err)
	}
	list := []Project{p}
	b.ReportAllocs()
	for b.Loop() {
		reg.RefreshFingerprints(ctx, list, 0)
	}
}
