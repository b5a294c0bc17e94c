package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/store"
)

// Adding the home folder or / lets the agent's file tools reach
// everything below it: without a terminal to ask, it takes a flag.
func TestProjectsAddBroadRootNeedsConfirmation(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	home := c.env["HOME"]
	for _, path := range []string{home, "/", "~", filepath.Dir(home)} {
		c.fails(1, "the agent's file tools will reach everything below it; to add it anyway, pass --allow-broad-root", "projects", "add", path)
	}
	// The data dir lives under the agent's reach too when a project holds it.
	c.env["PI_TUI_DATA_DIR"] = filepath.Join(home, "work", "pi-data")
	c.fails(1, "pi-tui's data dir", "projects", "add", filepath.Join(home, "work"))
	if out := c.ok("projects", "list", "--all"); !strings.Contains(out, "No projects yet") {
		t.Fatalf("a refused add registered something:\n%s", out)
	}

	if out := c.ok("projects", "add", "~", "--allow-broad-root", "--name", "home"); !strings.Contains(out, "added home") {
		t.Errorf("with the flag: %s", out)
	}
	// Known already: nothing new is reached, nothing is asked.
	if out := c.ok("projects", "add", home); !strings.Contains(out, "already registered") {
		t.Errorf("re-add: %s", out)
	}
	// An ordinary folder asks nothing.
	c.ok("projects", "add", mkdir(t, home, "src", "api"))
}

// projectID returns the id of the project listed under name.
func (c *cli) projectID(name string) string {
	c.t.Helper()
	var list []registry.Project
	if err := json.Unmarshal([]byte(c.ok("projects", "list", "--all", "--json")), &list); err != nil {
		c.t.Fatal(err)
	}
	for _, p := range list {
		if p.Name == name {
			return p.ID
		}
	}
	c.t.Fatalf("no project named %s", name)
	return ""
}

// sqlExec changes the database behind pi-tui's back, as an older pi-tui
// (or a hand edit) may have left it.
func (c *cli) sqlExec(query string, args ...any) {
	c.t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(c.env["PI_TUI_DATA_DIR"], store.FileName))
	if err != nil {
		c.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		c.t.Fatal(err)
	}
}

// Names are unique ignoring case; a database from before that rule still
// opens, lists its duplicates as such, and a script naming one is told
// which ids to use instead.
func TestProjectNamesAreUnique(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	home := c.env["HOME"]
	one := mkdir(t, home, "one", "api")
	two := mkdir(t, home, "two", "api")
	c.ok("projects", "add", one)
	idOne := c.projectID("api")
	c.fails(1, `the name "api" is taken by project `+idOne, "projects", "add", two)
	c.fails(1, `the name "API" is taken by project `+idOne, "projects", "add", two, "--name", "API")
	c.ok("projects", "add", two, "--name", "api-2")
	idTwo := c.projectID("api-2")
	c.fails(1, "is taken by project "+idOne, "projects", "rename", "api-2", "Api")

	c.sqlExec(`UPDATE projects SET name = 'API' WHERE id = ?`, idTwo)
	out := c.ok("projects", "list")
	if strings.Count(out, "duplicate-name") != 2 {
		t.Errorf("the text list does not mark both duplicates:\n%s", out)
	}
	var list []registry.Project
	json.Unmarshal([]byte(c.ok("projects", "list", "--json")), &list)
	for _, p := range list {
		if !p.DuplicateName {
			t.Errorf("JSON: %s not marked duplicateName", p.ID)
		}
	}
	code, _, errs := c.run("", "memory", "show", "api")
	if code != 1 || !strings.Contains(errs, idOne) || !strings.Contains(errs, idTwo) || strings.Count(errs, "\n") != 1 {
		t.Errorf("memory show of an ambiguous name: exit %d, %q", code, errs)
	}
	// Ids and paths still pick one; renaming one ends the ambiguity.
	c.ok("memory", "show", idTwo)
	c.ok("projects", "rename", idTwo, "api-two")
	c.ok("memory", "show", "api")
	if out := c.ok("projects", "list"); strings.Contains(out, "duplicate-name") {
		t.Errorf("still marked after the rename:\n%s", out)
	}
}

func TestProjectsGroupAndRelocate(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	home := c.env["HOME"]
	api := mkdir(t, home, "src", "api")
	web := mkdir(t, home, "src", "web")
	c.ok("projects", "add", api, "--trust")
	c.ok("projects", "add", web)
	c.fails(1, "no project matches", "projects", "group", "work", "api", "nope")
	if out := c.ok("projects", "group", "work", "api", "web"); strings.Count(out, "in the group work") != 2 {
		t.Errorf("group said %q", out)
	}
	var list []registry.Project
	json.Unmarshal([]byte(c.ok("projects", "list", "--json")), &list)
	for _, p := range list {
		if p.Group != "work" {
			t.Errorf("%s: group %q", p.Name, p.Group)
		}
	}
	c.ok("projects", "ungroup", "web")
	if out := c.ok("projects", "list"); !strings.Contains(out, "GROUP") || strings.Count(out, "work") != 1 {
		t.Errorf("after ungroup:\n%s", out)
	}
	c.fails(2, "needs at least one PROJECT", "projects", "group", "--none")

	// The folder moves: memory, sessions and trust follow it.
	c.run("pinned note", "memory", "set", "api", "--file", "-")
	sessions := filepath.Join(home, ".pi", "agent", "sessions", "--"+strings.ReplaceAll(strings.TrimPrefix(api, "/"), "/", "-")+"--")
	mkdir(t, sessions)
	header := `{"type":"session","version":3,"id":"0190a0b0-0000-7000-8000-000000000001","timestamp":"2026-12-01T05:26:26.631Z","cwd":"` + api + `"}` + "\n"
	os.WriteFile(filepath.Join(sessions, "2026-12-01T05-26-26-631Z_0190a0b0-0000-7000-8000-000000000001.jsonl"), []byte(header), 0o600)
	c.fails(1, "still exists", "projects", "relocate", "api", web)
	moved := filepath.Join(home, "work", "api")
	mkdir(t, home, "work")
	if err := os.Rename(api, moved); err != nil {
		t.Fatal(err)
	}
	if out := c.ok("projects", "list"); !strings.Contains(out, "MISSING") {
		t.Fatalf("not missing:\n%s", out)
	}
	out := c.ok("projects", "relocate", "api", "~/work/api")
	if !strings.Contains(out, "relocated from ~/src/api to ~/work/api with 1 session") {
		t.Errorf("relocate said %q", out)
	}
	if out := c.ok("memory", "show", "api"); !strings.Contains(out, "pinned note") {
		t.Errorf("memory after relocate: %q", out)
	}
	json.Unmarshal([]byte(c.ok("projects", "list", "--json")), &list)
	for _, p := range list {
		if p.Name == "api" && (p.Root != moved || p.Missing || !p.Trusted || p.Group != "work") {
			t.Errorf("after relocate: %+v", p)
		}
	}
	if out := c.ok("sessions", "list", "api"); !strings.Contains(out, "0190a0b0") {
		t.Errorf("sessions after relocate: %q", out)
	}
}

// Adding a moved folder whose name and instructions match a missing
// project is refused, in one line that names the project and both ways
// on; either way then works.
func TestProjectsAddRefusesAMovedProject(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	home := c.env["HOME"]
	old := mkdir(t, home, "src", "shop")
	if err := os.WriteFile(filepath.Join(old, "AGENTS.md"), []byte("Run the tests first."), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok("projects", "add", old)
	id := c.projectID("shop")
	mkdir(t, home, "my work")
	moved := filepath.Join(home, "my work", "shop")
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	c.fails(1, "~/my work/shop looks like project shop ("+id+"), whose folder ~/src/shop is missing: the same folder name and instruction files; "+
		"to move the project here run `pi-tui projects relocate shop '~/my work/shop'`, or to add it as another project run `pi-tui projects add '~/my work/shop' --new`",
		"projects", "add", "~/my work/shop")
	if out := c.ok("projects", "list"); strings.Count(out, "\n") != 2 {
		t.Fatalf("a refused add registered something:\n%s", out)
	}
	out := c.ok("projects", "add", moved, "--new", "--name", "shop2")
	if !strings.Contains(out, "added shop2") {
		t.Errorf("--new: %s", out)
	}
	c.ok("projects", "remove", "shop2")
	out = c.ok("projects", "relocate", "shop", moved)
	if !strings.Contains(out, "relocated from ~/src/shop to ~/my work/shop") {
		t.Errorf("relocate: %s", out)
	}
}

// Relocating onto a folder too broad to be a project (the home folder)
// needs the same second yes as adding it.
func TestRelocateOntoHomeNeedsAllowBroad(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := mkdir(t, c.env["HOME"], "src", "shop")
	c.ok("projects", "add", dir, "--name", "shop")
	os.RemoveAll(dir)
	c.fails(1, "--allow-broad-root", "projects", "relocate", "shop", c.env["HOME"])
	c.ok("projects", "relocate", "shop", c.env["HOME"], "--allow-broad-root")
}
