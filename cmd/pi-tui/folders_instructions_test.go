package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/internal/screentest"
	"github.com/pi-tui/pi-tui/ui"
)

// instructions --project P TARGET explains a target in any folder of the
// project: written web:path, absolute, or relative to the primary root;
// that folder's own chain, labelled with its name, under that folder's
// trust (not the project's).
func TestInstructionsExplainATargetInAnyFolder(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	home := c.env["HOME"]
	api := mkdir(t, home, "src", "api")
	web := mkdir(t, home, "src", "web")
	writeFile(t, filepath.Join(api, "AGENTS.md"), "Primary rules.\n")
	writeFile(t, filepath.Join(web, "AGENTS.md"), "Web rules.\n")
	writeFile(t, filepath.Join(web, "packages", "ui", "AGENTS.md"), "UI rules.\n")
	c.ok("projects", "add", api, "--trust")
	c.ok("projects", "folders", "add", "api", web)

	// Untrusted folder, trusted project: nothing of the folder's.
	for _, target := range []string{"web:packages/ui/x.ts", filepath.Join(web, "packages", "ui", "x.ts"), "../web/packages/ui/x.ts"} {
		out := c.ok("instructions", "--project", "api", "--model", "anthropic/x", target)
		if strings.Contains(out, "Web rules") || strings.Contains(out, "Primary rules") || !strings.Contains(out, "folder web of project api is untrusted") {
			t.Errorf("%s, untrusted folder:\n%s", target, out)
		}
	}
	c.ok("projects", "folders", "trust", "api", "web")
	for _, target := range []string{"web:packages/ui/x.ts", "WEB:packages/ui/x.ts", filepath.Join(web, "packages", "ui", "x.ts"), "../web/packages/ui/x.ts"} {
		out := c.ok("instructions", "--project", "api", "--model", "anthropic/x", target)
		for _, want := range []string{`## "web:AGENTS.md"`, "Web rules.", `## "web:packages/ui/AGENTS.md"`, "UI rules.", "is in folder web (~/src/web) of project api"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", target, want, out)
			}
		}
		if strings.Contains(out, "Primary rules") {
			t.Errorf("%s: the primary root's file is in the folder's chain:\n%s", target, out)
		}
	}
	var chain instructions.Chain
	if err := json.Unmarshal([]byte(c.ok("instructions", "--project", "api", "--json", "--model", "anthropic/x", "web:packages/ui/x.ts")), &chain); err != nil {
		t.Fatal(err)
	}
	if chain.Folder != "web" || chain.Root != web || len(chain.Sources) != 2 || chain.Sources[0].Label != "web:AGENTS.md" {
		t.Errorf("--json = %+v", chain)
	}
	// Untrusting the project leaves the trusted folder's chain alone, and
	// a target in the primary root is as before.
	c.ok("projects", "untrust", "api")
	if out := c.ok("instructions", "--project", "api", "--model", "anthropic/x", "web:packages/ui/x.ts"); !strings.Contains(out, "UI rules.") {
		t.Errorf("folder chain under an untrusted project:\n%s", out)
	}
	if out := c.ok("instructions", "--project", "api", "--model", "anthropic/x", "x.go"); !strings.Contains(out, "Primary rules.") || strings.Contains(out, "Web rules") {
		t.Errorf("primary target:\n%s", out)
	}
}

// `pi-tui PATH` inside any folder of a project opens that project, on its
// sessions, as it does inside the primary root.
func TestPathInAnyFolderOpensTheProject(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	home := c.env["HOME"]
	api := mkdir(t, home, "src", "api")
	web := mkdir(t, home, "src", "web")
	deep := mkdir(t, web, "packages", "ui")
	c.ok("projects", "add", api, "--name", "shop")
	c.ok("projects", "folders", "add", "shop", web)
	link := filepath.Join(home, "ui-link")
	if err := os.Symlink(deep, link); err != nil {
		t.Fatal(err)
	}
	a := &app{ctx: context.Background(), env: func(k string) string { return c.env[k] }}
	t.Cleanup(a.close)
	h, err := a.openHost()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{web, deep, link} {
		dir, err := a.startDir(path)
		if err != nil {
			t.Fatal(err)
		}
		at, err := a.startAt(h, dir, tuiStart{path: path})
		if err != nil || at.Project == nil || at.Project.Name != "shop" || at.AddPath != "" {
			t.Fatalf("%s: start = %+v %v; want the project shop", path, at, err)
		}
	}
	dir, _ := a.startDir(deep)
	at, _ := a.startAt(h, dir, tuiStart{path: deep})
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	m := ui.New(ui.Options{Host: h, Context: a.ctx, Renderer: r, Env: a.env, Start: at})
	s := screentest.Start(t, m, 100, 30, screentest.Plain)
	s.WaitFor("Sessions · shop", "No sessions yet")
}
