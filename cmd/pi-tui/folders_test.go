package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/registry"
)

// A project of several folders through the command line: list, add
// (refusing what projects add refuses, and nesting), trust per folder,
// remove (refusing the primary root, and a folder sessions worked in
// without --force), relocate a folder that moved, and projects list
// --json naming every folder while keeping its fields.
func TestProjectsFoldersCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	home := c.env["HOME"]
	api := mkdir(t, home, "src", "api")
	web := mkdir(t, home, "src", "web")
	ops := mkdir(t, home, "ops", "infra")
	other := mkdir(t, home, "src", "other")
	c.ok("projects", "add", api)
	c.ok("projects", "add", other)

	if out := c.ok("projects", "folders", "add", "api", web, "--trust"); !strings.Contains(out, "added folder web (~/src/web) to api") || !strings.Contains(out, "trusted") {
		t.Errorf("add: %s", out)
	}
	// A folder given through a link is where the link leads.
	link := filepath.Join(home, "infra-link")
	if err := os.Symlink(ops, link); err != nil {
		t.Fatal(err)
	}
	if out := c.ok("projects", "folders", "add", "api", link, "--name", "infra"); !strings.Contains(out, "added folder infra (~/ops/infra)") ||
		!strings.Contains(out, "projects folders trust") {
		t.Errorf("add through a link: %s", out)
	}
	c.fails(1, "is already project", "projects", "folders", "add", "api", other)
	c.fails(1, "is inside the primary root", "projects", "folders", "add", "api", mkdir(t, api, "pkg"))
	c.fails(1, "holds the primary root", "projects", "folders", "add", "api", filepath.Join(home, "src"))
	far := mkdir(t, t.TempDir(), "far")
	c.ok("projects", "add", far)
	c.fails(1, "is your home folder: the agent's file tools will reach everything below it; to add it anyway, pass --allow-broad-root", "projects", "folders", "add", "far", "~")
	c.fails(1, "already a folder of project", "projects", "folders", "add", "other", web)
	c.fails(1, `the folder name "WEB" is taken`, "projects", "folders", "add", "api", mkdir(t, home, "w2"), "--name", "WEB")
	c.fails(2, "needs PROJECT and PATH", "projects", "folders", "add", "api")
	// A folder of a project is no project of its own.
	c.fails(1, "is already a folder of project", "projects", "add", web)

	var fs []registry.Folder
	if err := json.Unmarshal([]byte(c.ok("projects", "folders", "api", "--json")), &fs); err != nil {
		t.Fatal(err)
	}
	if len(fs) != 3 || !fs[0].Primary || fs[0].Path != api || fs[1].Name != "web" || !fs[1].Trusted || fs[2].Path != ops || fs[2].Trusted {
		t.Fatalf("folders --json = %+v", fs)
	}
	out := c.ok("projects", "folders", "api")
	for _, want := range []string{"NAME", "api    ~/src/api    untrusted  primary", "web    ~/src/web    trusted", "infra  ~/ops/infra  untrusted  -"} {
		if !strings.Contains(out, want) {
			t.Errorf("folders table lacks %q:\n%s", want, out)
		}
	}
	// A folder's path names its project.
	if out := c.ok("projects", "folders", web); !strings.Contains(out, "primary") {
		t.Errorf("folders by a folder's path: %s", out)
	}

	// projects list --json keeps every field and adds the folders.
	var list []map[string]any
	if err := json.Unmarshal([]byte(c.ok("projects", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		for _, k := range []string{"id", "name", "root", "pinned", "archived", "trusted", "missing", "memoryEntries", "memoryBytes", "sessions", "lastOpenedAt", "group", "duplicateName", "folders"} {
			if _, ok := p[k]; !ok {
				t.Errorf("projects list --json lacks %q: %v", k, p)
			}
		}
		if p["name"] == "api" && len(p["folders"].([]any)) != 3 {
			t.Errorf("api's folders: %v", p["folders"])
		}
		if p["name"] == "other" && len(p["folders"].([]any)) != 1 {
			t.Errorf("other's folders: %v", p["folders"])
		}
	}

	// Trust per folder.
	if out := c.ok("projects", "folders", "trust", "api", "infra"); !strings.Contains(out, "folder infra of api") || !strings.Contains(out, "trusted (in pi's trust.json)") {
		t.Errorf("trust: %s", out)
	}
	if out := c.ok("projects", "folders", "untrust", "api", "~/src/web"); !strings.Contains(out, "untrusted") {
		t.Errorf("untrust: %s", out)
	}
	if out := c.ok("projects", "folders", "trust", "api", "infra"); !strings.Contains(out, "was already trusted") {
		t.Errorf("trust twice: %s", out)
	}

	// Removing: never the primary root; a folder a session worked in only
	// with --force, naming the session first.
	c.fails(1, "is the primary root of api and cannot be removed", "projects", "folders", "remove", "api", api)
	id := c.projectID("api")
	const sid = "0190a0b0-0000-7000-8000-000000000001"
	dir := pisession.SessionsDir(filepath.Join(home, ".pi", "agent"), api)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	header := `{"type":"session","version":3,"id":"` + sid + `","timestamp":"2026-12-01T05:26:26.631Z","cwd":"` + api + `"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "2026-12-01T05-26-26-631Z_"+sid+".jsonl"), []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
	c.sqlExec(`INSERT INTO folder_sessions (project_id, path, session_id, noted_at) VALUES (?, ?, ?, 1)`, id, web, sid)
	c.fails(1, `1 session of api worked in folder "web"`, "projects", "folders", "remove", "api", "web")
	c.fails(1, sid+"; removing it keeps them", "projects", "folders", "remove", "api", "web")
	if out := c.ok("projects", "folders", "remove", "api", "web", "--force"); !strings.Contains(out, "removed folder web (~/src/web) from api") ||
		!strings.Contains(out, "the 1 session that worked in it stay") {
		t.Errorf("forced remove: %s", out)
	}
	if out := c.ok("sessions", "list", "api"); !strings.Contains(out, sid[:8]) {
		t.Errorf("the session went with the folder:\n%s", out)
	}
	if _, err := os.Stat(web); err != nil {
		t.Errorf("the folder on disk: %v", err)
	}

	// A folder that moved: listed MISSING, relocated with its trust.
	moved := filepath.Join(home, "moved-infra")
	if err := os.Rename(ops, moved); err != nil {
		t.Fatal(err)
	}
	if out := c.ok("projects", "folders", "api"); !strings.Contains(out, "MISSING") {
		t.Errorf("a folder gone from disk is not marked:\n%s", out)
	}
	c.fails(1, "is the primary root of api: it moves with the project", "projects", "folders", "relocate", "api", "api", moved)
	if out := c.ok("projects", "folders", "relocate", "api", "infra", moved); !strings.Contains(out, "folder infra of api") || !strings.Contains(out, "now at ~/moved-infra") {
		t.Errorf("relocate: %s", out)
	}
	if err := json.Unmarshal([]byte(c.ok("projects", "folders", "api", "--json")), &fs); err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs[1].Path != mkdir(t, moved) || !fs[1].Trusted || fs[1].Missing {
		t.Errorf("after relocate: %+v", fs)
	}
	// A vanished folder is removed by its path.
	os.Remove(moved)
	if out := c.ok("projects", "folders", "remove", "api", moved); !strings.Contains(out, "removed folder infra") {
		t.Errorf("remove a vanished folder: %s", out)
	}
}

// A hostile folder name is shown as text, in the table and in messages.
func TestProjectsFoldersHostileNames(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	home := c.env["HOME"]
	api := mkdir(t, home, "api")
	evil := mkdir(t, home, "x"+strings.ReplaceAll(hostile, "/", "_"))
	c.ok("projects", "add", api)
	out := c.ok("projects", "folders", "add", "api", evil)
	assertShownAsText(t, "folders add", out)
	assertShownAsText(t, "folders", c.ok("projects", "folders", "api"))
	var fs []registry.Folder
	if err := json.Unmarshal([]byte(c.ok("projects", "folders", "api", "--json")), &fs); err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs[1].Path != evil || strings.ContainsAny(fs[1].Name, "\n\t\x1b:") {
		t.Errorf("folders = %+v", fs)
	}
}
