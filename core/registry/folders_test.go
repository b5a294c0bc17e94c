package registry

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/store"
)

// folderFixture is a project "api" with a place beside it for other
// folders, all under one canonical temporary folder.
type folderFixture struct {
	reg  *Registry
	st   *store.Store
	base string // canonical
	p    Project
}

func newFolderFixture(t *testing.T) *folderFixture {
	t.Helper()
	reg, st := newRegistry(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &folderFixture{reg: reg, st: st, base: base}
	f.p = f.project(t, "api")
	return f
}

// dir makes a folder below base.
func (f *folderFixture) dir(t *testing.T, rel string) string {
	t.Helper()
	d := filepath.Join(f.base, rel)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func (f *folderFixture) project(t *testing.T, rel string) Project {
	t.Helper()
	p, _, err := f.reg.Add(context.Background(), f.dir(t, rel), "", false)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func names(fs []Folder) string {
	var out []string
	for _, f := range fs {
		s := f.Name + "=" + filepath.Base(f.Path)
		if f.Primary {
			s += "*"
		}
		if f.Trusted {
			s += "+t"
		}
		if f.Missing {
			s += "!"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestFoldersAreOrderedPrimaryFirstEachWithItsTrust(t *testing.T) {
	ctx := context.Background()
	f := newFolderFixture(t)
	web := f.dir(t, "web")
	infra := f.dir(t, "ops/infra")
	// The second is added through a link: it is stored where it leads.
	link := filepath.Join(f.base, "infra-link")
	if err := os.Symlink(infra, link); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.AddFolder(ctx, f.p.ID, web, "", true, FolderOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := f.reg.AddFolder(ctx, f.p.ID, link, "ops", false, FolderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != infra || got.Name != "ops" || got.Primary || got.Trusted {
		t.Errorf("added = %+v, want ops at %s, untrusted", got, infra)
	}
	want := "api=api* web=web+t ops=infra"
	fs, err := f.reg.Folders(ctx, f.p.ID)
	if err != nil || names(fs) != want {
		t.Fatalf("Folders = %s, %v; want %s", names(fs), err, want)
	}
	// The engines' view, by the primary root.
	if fs, err := f.reg.FoldersOf(ctx, f.p.Root); err != nil || names(fs) != want {
		t.Errorf("FoldersOf = %s, %v; want %s", names(fs), err, want)
	}
	if _, err := f.reg.FoldersOf(ctx, web); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("FoldersOf(a folder that is no primary root) = %v, want NotFoundError", err)
	}
	// Trust is pi's trust.json, per folder: the primary stays untrusted.
	d, _ := f.reg.Trust().Read(ctx)
	if d[web] != Trusted || d[f.p.Root] != Undecided {
		t.Errorf("trust.json = %v; want web trusted, the root undecided", d)
	}
	// A listing names every folder, and its JSON adds "folders".
	list, _ := f.reg.List(ctx, true)
	if len(list) != 1 || names(list[0].Folders) != want {
		t.Fatalf("List = %+v", list)
	}
	b, _ := json.Marshal(list[0])
	var m map[string]any
	json.Unmarshal(b, &m)
	if m["root"] != f.p.Root || len(m["folders"].([]any)) != 3 {
		t.Errorf("JSON = %s", b)
	}
	first := m["folders"].([]any)[0].(map[string]any)
	if first["primary"] != true || first["path"] != f.p.Root || first["name"] != "api" {
		t.Errorf("first folder in JSON = %v", first)
	}
	// A project of one folder lists its root as its only folder.
	solo := f.project(t, "solo")
	if got := names(solo.Folders); got != "solo=solo*" {
		t.Errorf("one-folder project's folders = %s", got)
	}
	// Trust changes per folder; the primary's is the project's.
	if _, err := f.reg.SetFolderTrusted(ctx, f.p.ID, "ops", true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.SetFolderTrusted(ctx, f.p.ID, web, false); err != nil {
		t.Fatal(err)
	}
	if fs, _ := f.reg.Folders(ctx, f.p.ID); names(fs) != "api=api* web=web ops=infra+t" {
		t.Errorf("after trust changes: %s", names(fs))
	}
	if _, err := f.reg.SetFolderTrusted(ctx, f.p.ID, f.p.Root, true); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.reg.Get(ctx, f.p.ID); !p.Trusted || !p.Folders[0].Trusted {
		t.Errorf("trusting the primary root trusts the project: %+v", p)
	}
}

func TestAddFolderRefusesWhatAddWouldAndNesting(t *testing.T) {
	ctx := context.Background()
	f := newFolderFixture(t)
	other := f.project(t, "other")
	shared := f.dir(t, "shared")
	if _, err := f.reg.AddFolder(ctx, other.ID, shared, "", false, FolderOptions{}); err != nil {
		t.Fatal(err)
	}
	web := f.dir(t, "web")
	if _, err := f.reg.AddFolder(ctx, f.p.ID, web, "", false, FolderOptions{}); err != nil {
		t.Fatal(err)
	}
	home := f.dir(t, "home/me")
	pl := paths.Places{Home: home, AgentDir: filepath.Join(home, ".pi", "agent"), DataDir: filepath.Join(f.base, "data")}
	f.dir(t, "home/me/src")
	f.dir(t, "api/packages/ui")
	f.dir(t, "web/app")
	os.WriteFile(filepath.Join(f.base, "file.txt"), []byte("x"), 0o644)
	// Links: one inside the project that leads back out to the parent of
	// the root, one to the home folder, one dangling.
	os.Symlink(f.base, filepath.Join(f.base, "api", "up"))
	os.Symlink(home, filepath.Join(f.base, "home-link"))
	os.Symlink(filepath.Join(f.base, "nowhere"), filepath.Join(f.base, "dangling"))

	for _, c := range []struct {
		path, want string
		as         any
	}{
		{other.Root, "is already project", new(*store.FolderTakenError)},
		{shared, "is already a folder of project " + other.ID, new(*store.FolderTakenError)},
		{web, "already a folder of project " + f.p.ID, new(*store.FolderTakenError)},
		{f.p.Root, "is already project " + f.p.ID, new(*store.FolderTakenError)},
		{filepath.Join(f.p.Root, "packages", "ui"), "is inside the primary root", new(*NestedFolderError)},
		{filepath.Join(web, "app"), `is inside folder "web"`, new(*NestedFolderError)},
		{f.base, "holds the primary root", new(*NestedFolderError)},
		{filepath.Join(f.p.Root, "up"), "holds the primary root", new(*NestedFolderError)},
		{"/", "holds the primary root", new(*NestedFolderError)}, // refused before it is asked
		{home, "your home folder", new(*BroadRootError)},
		{filepath.Join(f.base, "home-link"), "your home folder", new(*BroadRootError)},
		{filepath.Join(f.base, "home"), "above your home folder", new(*BroadRootError)},
		{filepath.Join(f.base, "file.txt"), "is not a directory", nil},
		{filepath.Join(f.base, "dangling"), "does not exist", nil},
		{"bad\x00path", "not a valid path", nil},
	} {
		_, err := f.reg.AddFolder(ctx, f.p.ID, c.path, "", false, FolderOptions{Places: &pl})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
			continue
		}
		if c.as != nil && !errors.As(err, c.as) {
			t.Errorf("%s: %T, want %T", c.path, err, c.as)
		}
	}
	// A broad folder the user confirmed is added.
	if _, err := f.reg.AddFolder(ctx, f.p.ID, home, "home", false, FolderOptions{Places: &pl, AllowBroad: true}); err != nil {
		t.Errorf("confirmed broad folder: %v", err)
	}
	// Nothing refused was stored.
	if fs, _ := f.reg.Folders(ctx, f.p.ID); names(fs) != "api=api* web=web home=me" {
		t.Errorf("folders = %s", names(fs))
	}
	// And a folder of a project is not a project of its own.
	if _, _, err := f.reg.Add(ctx, web, "", false); !errors.As(err, new(*store.FolderTakenError)) {
		t.Errorf("adding a project's folder as a project: %v", err)
	}
}

func TestFolderNamesAreCleanUniqueAndUsable(t *testing.T) {
	ctx := context.Background()
	f := newFolderFixture(t)
	// Two checkouts called web, and a base name with a colon, a control
	// character, an escape sequence and a line break.
	a := f.dir(t, "one/web")
	b := f.dir(t, "two/web")
	hostile := f.dir(t, "x:y\x1b[31m\tred\nline")
	for _, c := range []struct{ path, name, want string }{
		{a, "", "web"},
		{b, "", "web-2"},
		{hostile, "", "x-y[31m red line"},
	} {
		got, err := f.reg.AddFolder(ctx, f.p.ID, c.path, c.name, false, FolderOptions{})
		if err != nil || got.Name != c.want {
			t.Errorf("%q: %q, %v; want %q", c.path, got.Name, err, c.want)
		}
	}
	c := f.dir(t, "three")
	for name, want := range map[string]string{
		"WEB":      `"WEB" is taken by ` + a,
		"api":      `"api" is taken by ` + f.p.Root, // the primary root's name
		"a:b":      "contains / or :",
		"../x":     "contains / or :",
		"~x":       "taken for a path",
		"\x00\x01": "", // nothing left: the base name is taken
	} {
		got, err := f.reg.AddFolder(ctx, f.p.ID, c, name, false, FolderOptions{})
		if want == "" {
			if err != nil || got.Name != "three" {
				t.Errorf("name %q: %+v %v; want the base name", name, got, err)
			}
			f.reg.RemoveFolder(ctx, f.p.ID, c, false)
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("name %q: %v, want %q", name, err, want)
		}
	}
	// A name finds its folder, ignoring case; a path-like query is a path.
	p, _ := f.reg.Get(ctx, f.p.ID)
	if got, err := f.reg.FindFolder(p, "Web-2"); err != nil || got.Path != b {
		t.Errorf("FindFolder(Web-2) = %+v %v", got, err)
	}
	if _, err := f.reg.FindFolder(p, "./web"); !errors.As(err, new(*FolderNotFoundError)) {
		t.Errorf("FindFolder(./web) = %v", err)
	}
}

func TestRemoveFolderSaysWhatHappensToItsSessions(t *testing.T) {
	ctx := context.Background()
	f := newFolderFixture(t)
	web := f.dir(t, "web")
	gone := f.dir(t, "gone")
	for _, d := range []string{web, gone} {
		if _, err := f.reg.AddFolder(ctx, f.p.ID, d, "", false, FolderOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The primary root cannot go.
	if _, err := f.reg.RemoveFolder(ctx, f.p.ID, f.p.Root, true); !errors.As(err, new(*PrimaryFolderError)) {
		t.Errorf("removing the primary root: %v", err)
	}
	// Two sessions worked in web (one of them deleted since), one in the
	// primary root only, which notes nothing.
	for _, id := range []string{"s-one", "s-two", "s-root"} {
		if err := f.st.IndexSession(ctx, f.p.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	f.reg.NoteFolderUse(ctx, f.p.ID, "s-one", filepath.Join(web, "src", "x.ts"))
	f.reg.NoteFolderUse(ctx, f.p.ID, "s-two", web)
	f.reg.NoteFolderUse(ctx, f.p.ID, "s-one", filepath.Join(web, "again"))
	f.reg.NoteFolderUse(ctx, f.p.ID, "s-root", filepath.Join(f.p.Root, "main.go"))
	f.reg.NoteFolderUse(ctx, f.p.ID, "s-deleted", web)
	if ids, err := f.reg.FolderSessions(ctx, f.p.ID, "web"); err != nil || strings.Join(ids, " ") != "s-one s-two" {
		t.Errorf("FolderSessions = %v %v", ids, err)
	}
	_, err := f.reg.RemoveFolder(ctx, f.p.ID, web, false)
	var inUse *FolderInUseError
	if !errors.As(err, &inUse) || !strings.Contains(err.Error(), "2 sessions of api worked in folder \"web\"") ||
		!strings.Contains(err.Error(), "s-one, s-two;") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("removing a folder sessions worked in: %v", err)
	}
	if fs, _ := f.reg.Folders(ctx, f.p.ID); len(fs) != 3 {
		t.Errorf("refused removal changed the folders: %s", names(fs))
	}
	// A folder removed from disk is still named by its path, and one no
	// session worked in goes without --force.
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if fs, _ := f.reg.Folders(ctx, f.p.ID); names(fs) != "api=api* web=web gone=gone!" {
		t.Errorf("after removing gone from disk: %s", names(fs))
	}
	if rm, err := f.reg.RemoveFolder(ctx, f.p.ID, gone, false); err != nil || rm.Name != "gone" {
		t.Errorf("removing a vanished folder: %+v %v", rm, err)
	}
	// Forced: the sessions stay with the project, the notes go.
	if _, err := f.reg.RemoveFolder(ctx, f.p.ID, "web", true); err != nil {
		t.Fatal(err)
	}
	idx, _ := f.st.SessionIndex(ctx)
	if len(idx[f.p.ID]) != 3 {
		t.Errorf("sessions after the forced removal: %v", idx[f.p.ID])
	}
	if fs, _ := f.reg.Folders(ctx, f.p.ID); names(fs) != "api=api*" {
		t.Errorf("folders = %s", names(fs))
	}
	// Added again, the folder starts with no notes: removing it asks nothing.
	if _, err := f.reg.AddFolder(ctx, f.p.ID, web, "", false, FolderOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.RemoveFolder(ctx, f.p.ID, web, false); err != nil {
		t.Errorf("re-added folder: %v", err)
	}
	if _, err := f.reg.RemoveFolder(ctx, f.p.ID, "web", false); !errors.As(err, new(*FolderNotFoundError)) {
		t.Errorf("removing it twice: %v", err)
	}
}

func TestRelocateFolderAppliesTheRootsRules(t *testing.T) {
	ctx := context.Background()
	f := newFolderFixture(t)
	web := f.dir(t, "web")
	if _, err := f.reg.AddFolder(ctx, f.p.ID, web, "", true, FolderOptions{}); err != nil {
		t.Fatal(err)
	}
	f.st.IndexSession(ctx, f.p.ID, "s1")
	f.reg.NoteFolderUse(ctx, f.p.ID, "s1", web)
	moved := filepath.Join(f.base, "moved", "web")
	if _, err := f.reg.RelocateFolder(ctx, f.p.ID, "web", f.dir(t, "elsewhere"), FolderOptions{}); !errors.As(err, new(*FolderStillThereError)) {
		t.Errorf("relocating a folder still there: %v", err)
	}
	f.dir(t, "moved")
	if err := os.Rename(web, moved); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.RelocateFolder(ctx, f.p.ID, f.p.Root, moved, FolderOptions{}); !errors.As(err, new(*PrimaryFolderError)) {
		t.Errorf("relocating the primary root as a folder: %v", err)
	}
	if _, err := f.reg.RelocateFolder(ctx, f.p.ID, web, filepath.Join(f.p.Root), FolderOptions{}); err == nil {
		t.Error("relocated onto the primary root")
	}
	if _, err := f.reg.RelocateFolder(ctx, f.p.ID, web, f.base, FolderOptions{}); !errors.As(err, new(*NestedFolderError)) {
		t.Errorf("relocating around the primary root: %v", err)
	}
	got, err := f.reg.RelocateFolder(ctx, f.p.ID, web, moved, FolderOptions{})
	if err != nil || got.Path != moved || got.Name != "web" || !got.Trusted || got.Missing {
		t.Fatalf("relocated = %+v %v; want web at %s, trusted", got, err, moved)
	}
	d, _ := f.reg.Trust().Read(ctx)
	if _, ok := d[web]; ok || d[moved] != Trusted {
		t.Errorf("trust.json after the move: %v", d)
	}
	if ids, _ := f.reg.FolderSessions(ctx, f.p.ID, moved); len(ids) != 1 {
		t.Errorf("the session's note did not follow the folder: %v", ids)
	}
}

func TestRelocateProjectKeepsClearOfItsFolders(t *testing.T) {
	ctx := context.Background()
	f := newFolderFixture(t)
	web := f.dir(t, "web")
	if _, err := f.reg.AddFolder(ctx, f.p.ID, web, "", false, FolderOptions{}); err != nil {
		t.Fatal(err)
	}
	other := f.project(t, "other")
	shared := f.dir(t, "shared")
	if _, err := f.reg.AddFolder(ctx, other.ID, shared, "", false, FolderOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(f.p.Root, filepath.Join(f.base, "web", "api")); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(web, "api"): `is inside folder "web"`,
		web:                       `is already folder "web"`,
		shared:                    "is already a folder of project " + other.ID,
	} {
		if _, err := f.reg.Relocate(ctx, f.p.ID, path, RelocateOptions{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("relocate to %s: %v, want %q", path, err, want)
		}
	}
	dest := f.dir(t, "api2")
	res, err := f.reg.Relocate(ctx, f.p.ID, dest, RelocateOptions{})
	if err != nil || names(res.Project.Folders) != "api2=api2* web=web" {
		t.Errorf("relocated: %+v %v", res.Project.Folders, err)
	}
}

func TestAnyFolderFindsItsProject(t *testing.T) {
	ctx := context.Background()
	f := newFolderFixture(t)
	web := f.dir(t, "web")
	f.dir(t, "web/src/deep")
	if _, err := f.reg.AddFolder(ctx, f.p.ID, web, "", false, FolderOptions{}); err != nil {
		t.Fatal(err)
	}
	// A project nested in the folder is the deeper one.
	inner := f.project(t, "web/src/deep")
	for dir, want := range map[string]string{
		filepath.Join(web, "src"):         f.p.ID + " web",
		web:                               f.p.ID + " web",
		filepath.Join(f.p.Root):           f.p.ID + " api",
		filepath.Join(web, "src", "deep"): inner.ID + " deep",
		f.base:                            "",
	} {
		p, fo, ok, err := f.reg.Holding(ctx, dir)
		got := ""
		if ok {
			got = p.ID + " " + fo.Name
		}
		if err != nil || got != want {
			t.Errorf("Holding(%s) = %q %v; want %q", dir, got, err, want)
		}
	}
	if p, err := f.reg.Find(ctx, web); err != nil || p.ID != f.p.ID {
		t.Errorf("Find(folder path) = %+v %v", p, err)
	}
	// A vanished folder still names its project by its path.
	os.RemoveAll(web)
	if p, err := f.reg.Find(ctx, web); err != nil || p.ID != f.p.ID {
		t.Errorf("Find(vanished folder) = %+v %v", p, err)
	}
	// Removing the project removes its folders: the folder is free again.
	if err := f.reg.Remove(ctx, f.p.ID); err != nil {
		t.Fatal(err)
	}
	f.dir(t, "web")
	if _, _, err := f.reg.Add(ctx, web, "", false); err != nil {
		t.Errorf("adding a removed project's folder as a project: %v", err)
	}
}
