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
