package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/registry"
)

// In a project of several folders, @ offers the primary root's files
// first, then the other folder's, written web:path; the one picked is
// inserted so, and on send it is attached from that folder.
func TestAtCompletesAcrossFoldersPrimaryFirst(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 110, 32, echoScript, true)
	web := filepath.Join(r.home, "web")
	writeAt(t, filepath.Join(web, "src", "handler.ts"), "export const handle = 1\n")
	addFolder(t, r, web)
	// The row, reloaded: the project the chat opens has its folders.
	r.waitFor("proj", "+ web ~/web")
	r.keys("enter", "o")
	r.waitFor("No sessions yet")
	r.keys("n")
	r.waitFor("Type a message", "runtime launched: new")

	r.tm.Type("explain @handler")
	r.waitFor("pkg/api/handler.go", "web:src/handler.ts", "2 of 5 files match")
	frame := r.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "web:src/handler.ts") })
	if strings.Index(frame, "pkg/api/handler.go") > strings.Index(frame, "web:src/handler.ts") {
		t.Fatalf("the primary root's match is not first:\n%s", frame)
	}
	r.keys("down", "tab")
	r.waitFor("› explain @web:src/handler.ts")
	r.keys("enter")
	r.waitFor("reply 0", "attached web:src/handler.ts (1 line)")
	reqs := r.fake.Requests()
	want := "<file name=\"" + filepath.Join(web, "src", "handler.ts") + "\">\nexport const handle = 1\n\n</file>\nexplain @web:src/handler.ts"
	if got := reqs[len(reqs)-1].LastUser; got != want {
		t.Fatalf("the model got %q\nwant %q", got, want)
	}

	// web: narrows the menu to that folder.
	r.tm.Type("and @web:")
	r.waitFor("web:src/handler.ts", "1 of 5 files matches")
}

// A folder added while a chat of the project is open (from the Projects
// row, another program, the command line in the same serve) is offered
// by @ in that chat without reopening it.
func TestAtOffersAFolderAddedWhileTheChatIsOpen(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 110, 32, echoScript, true)
	web := filepath.Join(r.home, "web")
	writeAt(t, filepath.Join(web, "src", "handler.ts"), "export const handle = 1\n")
	r.chat()
	r.tm.Type("explain @handler")
	r.waitFor("pkg/api/handler.go", "1 of 4 files matches")
	r.keys("ctrl+u")
	addFolder(t, r, web)
	r.tm.Type("explain @handler")
	r.waitFor("web:src/handler.ts", "2 of 5 files match")
	r.keys("down", "tab")
	r.waitFor("› explain @web:src/handler.ts")
	r.keys("enter")
	r.waitFor("attached web:src/handler.ts (1 line)")
	r.final()
}

// addFolder adds folder dir to the kit's project "proj", as the row menu's
// f does; the registry announces it on the broker.
func addFolder(t *testing.T, r *kitRig, dir string) {
	t.Helper()
	ctx := context.Background()
	p, err := r.m.opts.Host.Projects.Find(ctx, "proj")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.m.opts.Host.Projects.AddFolder(ctx, p.ID, dir, "", false, registry.FolderOptions{}); err != nil {
		t.Fatal(err)
	}
}
