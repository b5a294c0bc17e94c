package projects_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/internal/screentest"
	"github.com/pi-tui/pi-tui/ui"
)

// startAt starts the UI at w×h.
func startAt(t *testing.T, pl paths.Places, w, h int) *screen {
	t.Helper()
	m, done, err := ui.NewKit(context.Background(), ui.KitOptions{DataDir: pl.DataDir, AgentDir: pl.AgentDir, Home: pl.Home})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { done() })
	sc := screentest.Start(t, m, w, h, screentest.Prose)
	return &screen{Screen: sc, tm: sc.TM}
}

// shopOfThree registers shop (~/src/api, with an AGENTS.md) with the
// folders web (~/src/web, trusted, an AGENTS.md of its own) and infra
// (~/ops/infra); one session of shop worked in web.
func shopOfThree(t *testing.T, pl paths.Places) (sessionID string) {
	t.Helper()
	ctx := context.Background()
	api, web, infra := filepath.Join(pl.Home, "src", "api"), filepath.Join(pl.Home, "src", "web"), filepath.Join(pl.Home, "ops", "infra")
	for _, d := range []string{api, web, infra, filepath.Join(pl.Home, "src", "docs")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(api, "AGENTS.md"), []byte("API rules."), 0o644)
	os.WriteFile(filepath.Join(web, "AGENTS.md"), []byte("Web rules: no jQuery."), 0o644)
	h := openHost(t, pl)
	defer h.Close()
	p, _, err := h.Projects.Add(ctx, api, "shop", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Projects.AddFolder(ctx, p.ID, web, "", true, registry.FolderOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Projects.AddFolder(ctx, p.ID, infra, "", false, registry.FolderOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.Projects.Add(ctx, filepath.Join(pl.Home, "src", "docs"), "docs-site", true); err != nil {
		t.Fatal(err)
	}
	sessionID = "0190a0b0-0000-7000-8000-000000000007"
	dir := pisession.SessionsDir(pl.AgentDir, api)
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "2026-12-01T05-26-26-631Z_"+sessionID+".jsonl"),
		[]byte(`{"type":"session","version":3,"id":"`+sessionID+`","timestamp":"2026-12-01T05:26:26.631Z","cwd":"`+api+`"}`+"\n"), 0o600)
	if _, err := h.Sessions.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Projects.NoteFolderUse(ctx, p.ID, sessionID, filepath.Join(web, "src", "app.ts")); err != nil {
		t.Fatal(err)
	}
	return sessionID
}

// A project of several folders, at 80×24 and 120×40: its row names the
// folders after its root with their state; the row menu offers adding
// and removing folders and each folder's AGENTS.md; adding refuses a
// folder inside the root and adds another; removing a folder a session
// worked in names the session first.
func TestFoldersInTheProjectsRowAndMenus(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			pl := places(t)
			sid := shopOfThree(t, pl)
			s := startAt(t, pl, size.w, size.h)
			s.waitFor("shop", "+ web ~/src/web · infra ~/ops/infra [untrusted]")

			// The menu lists the folder items with their keys.
			s.keys("/")
			s.tm.Type("shop")
			s.keys("enter", "enter")
			s.waitFor("a Edit an AGENTS.md…", "f Add a folder…", "F Remove a folder…")
			s.keys("esc")

			// a: each folder's AGENTS.md.
			s.keys("a")
			s.waitFor("Edit which AGENTS.md of shop?", "1 api ~/src/api/AGENTS.md (primary root)", "2 web ~/src/web/AGENTS.md", "3 infra ~/ops/infra/AGENTS.md")
			s.keys("2")
			s.waitFor("~/src/web/AGENTS.md", "Web rules: no jQuery.")
			s.keys("esc")

			// f: a folder inside the root is refused, saying why; another
			// is added and shows in the row.
			s.keys("f")
			s.waitFor("Add a folder to shop", "The primary root ~/src/api stays first")
			s.tm.Type("~/src/api/pkg")
			os.MkdirAll(filepath.Join(pl.Home, "src", "api", "pkg"), 0o755)
			s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
			s.waitFor("is inside the primary root")
			s.keys("esc")
			os.MkdirAll(filepath.Join(pl.Home, "src", "assets"), 0o755)
			s.keys("f")
			s.waitFor("Add a folder to shop")
			s.tm.Type("~/src/assets")
			s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
			// The notice names the folder before the row is read again:
			// wait for the row, which F's list is made from.
			s.waitFor("added the folder assets to shop", "· assets ~/")

			// F: which folder, then the question naming the session.
			s.keys("F")
			s.waitFor("Remove which folder of shop?", "1 web ~/src/web", "2 infra ~/ops/infra", "3 assets ~/src/assets")
			s.keys("1")
			s.waitFor("Remove the folder web?", "1 session worked in it: "+sid, "Press D again to remove it.")
			s.keys("D")
			s.waitFor("removed the folder web from shop; it stays on disk")
			s.WaitFrame(func(frame string) bool {
				return !strings.Contains(frame, "web ~/src/web") && strings.Contains(frame, "infra")
			})
			if _, err := os.Stat(filepath.Join(pl.Home, "src", "web")); err != nil {
				t.Errorf("the folder on disk: %v", err)
			}

			// A project of one folder has no folder to remove, and says so.
			s.keys("esc", "/")
			s.tm.Type("docs-site")
			s.keys("enter", "F")
			s.waitFor("has only its primary root, which cannot be removed; f adds a folder")
		})
	}
}
