package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// The command palette (ctrl+k; ctrl+g in a text field) driven as a user
// drives it, at 80×24 and 120×40: what it opens from, what typing finds,
// where enter goes, and that what was being typed in the chat stays.

var paletteSizes = []struct{ w, h int }{{80, 24}, {120, 40}}

// plantSession writes a session pi began in the project at home/rel: its
// first message and, when name is not "", pi's session name. minute
// orders the sessions (later is more recent).
func plantSession(t *testing.T, home, rel, id, first, name string, minute int) {
	t.Helper()
	root := filepath.Join(home, rel)
	dir := pisession.SessionsDir(filepath.Join(home, ".pi", "agent"), root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ts := fmt.Sprintf("2026-12-01T10:%02d:00.000Z", minute)
	line := func(v map[string]any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	text := line(map[string]any{"type": "session", "version": 3, "id": id, "timestamp": ts, "cwd": root})
	text += line(map[string]any{"type": "message", "id": "m" + id[:7], "parentId": nil, "timestamp": ts,
		"message": map[string]any{"role": "user", "content": first, "timestamp": 1764583200000 + int64(minute)*60000}})
	if name != "" {
		text += line(map[string]any{"type": "session_info", "id": "n" + id[:7], "parentId": "m" + id[:7], "timestamp": ts, "name": name})
	}
	file := filepath.Join(dir, strings.ReplaceAll(strings.ReplaceAll(ts, ":", "-"), ".", "-")+"_"+id+".jsonl")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// From Projects, ctrl+k opens the palette; typing narrows it (only the
// project typed for is left of thirty); the highlight moved far down
// stays on screen; esc closes it; enter on a project opens its sessions.
func TestPaletteFromProjectsNarrowsAndOpensAProject(t *testing.T) {
	t.Parallel()
	for _, size := range paletteSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			for i := range 30 {
				f.add(fmt.Sprintf("src/proj-%02d", i), fmt.Sprintf("proj-%02d", i), true)
			}
			f.add("src/blog", "blog", true)
			s := f.run(size.w, size.h)
			s.waitScreen("blog", "proj-29")
			s.keys("ctrl+k")
			// Before anything is typed, every project (then the commands
			// and settings) is listed, the first highlighted.
			s.waitScreen("Go to", "› project  blog", "project  proj-00")
			s.keys("esc")
			s.sc.WaitFrame(func(f string) bool { return !strings.Contains(f, "Go to") && strings.Contains(f, "proj-29") })
			s.keys("ctrl+k")
			s.waitScreen("Go to", "› project  blog")
			for range 25 {
				s.keys("down")
			}
			// The 26th row, proj-24, is highlighted and on screen.
			s.waitScreen("› project  proj-24")
			s.sc.Keys("blg")
			s.sc.WaitFrame(func(f string) bool {
				return strings.Contains(f, "› project  blog") && !strings.Contains(f, "proj-0") && strings.Contains(f, "of ")
			})
			s.keys("enter")
			s.waitScreen("[2 Session]", "Sessions · blog")
			if view := s.final(); strings.Contains(view, "Go to") {
				t.Errorf("the palette stayed open:\n%s", view)
			}
		})
	}
}

// From Settings, a command found by typing runs: "Add project…" opens the
// add dialog on Projects.
func TestPaletteFromSettingsRunsACommand(t *testing.T) {
	t.Parallel()
	for _, size := range paletteSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.add("shop", "shop", true)
			s := f.run(size.w, size.h)
			s.waitScreen("shop")
			s.keys("3")
			s.waitScreen("[3 Settings]", "Permission mode")
			s.keys("ctrl+k")
			s.waitScreen("Go to")
			s.sc.Keys("add proj")
			s.waitScreen("› command  Add project…")
			s.keys("enter")
			s.waitScreen("[1 Projects]", "Add a project")
			s.final()
		})
	}
}

// A setting found by typing is focused: the Settings tab opens with the
// cursor on its row.
func TestPaletteFocusesASetting(t *testing.T) {
	t.Parallel()
	for _, size := range paletteSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.add("shop", "shop", true)
			s := f.run(size.w, size.h)
			s.waitScreen("shop")
			s.keys("ctrl+k")
			s.waitScreen("Go to")
			s.sc.Keys("idle ttl")
			s.waitScreen("› setting  Runtime idle TTL")
			s.keys("enter")
			s.waitScreen("[3 Settings]", "› Runtime idle TTL")
			s.final()
		})
	}
}

// A session is found by its first message (and a named one by its name),
// in any project, and enter opens it in the Session tab; from there (its
// list) ctrl+k finds and opens a session of another project.
func TestPaletteOpensASessionFoundByItsFirstMessage(t *testing.T) {
	t.Parallel()
	for _, size := range paletteSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.add("src/shop", "shop", true)
			f.add("src/blog", "blog", true)
			plantSession(t, f.home, "src/shop", "0190d7a0-0000-7000-8000-000000000001", "fix the login form on checkout", "", 1)
			plantSession(t, f.home, "src/blog", "0190d7a0-0000-7000-8000-000000000002", "draft the release notes", "", 2)
			plantSession(t, f.home, "src/shop", "0190d7a0-0000-7000-8000-000000000003", "buy milk and eggs", "Groceries", 3)
			s := f.run(size.w, size.h)
			s.waitScreen("shop")
			s.keys("ctrl+k")
			// Sessions come first, the most recent first.
			s.waitScreen("› session  Groceries", "session  draft the release notes", "session  fix the login form")
			s.sc.Keys("eggs")
			s.waitScreen("› session  Groceries")
			for range 4 {
				s.keys("backspace")
			}
			s.sc.Keys("login")
			s.sc.WaitFrame(func(f string) bool {
				return strings.Contains(f, "› session  fix the login form on checkout  shop") && !strings.Contains(f, "release notes")
			})
			s.keys("enter")
			s.waitScreen("[2 Session]", "Session · shop", "fix the login form on checkout")
			// From the Session tab's list too: ctrl+l leaves the chat for
			// it, and ctrl+k opens the palette there.
			s.keys("ctrl+l")
			s.waitScreen("Sessions · shop")
			s.keys("ctrl+k")
			s.waitScreen("Go to", "› session  Groceries")
			s.sc.Keys("release")
			s.waitScreen("› session  draft the release notes")
			s.keys("enter")
			s.waitScreen("Session · blog", "draft the release notes")
			s.final()
		})
	}
}

// From a session, ctrl+k in the input still deletes to the line end (and
// opens nothing); ctrl+g opens the palette; esc closes it with the text
// being typed still there; a slash command chosen in it runs, and the
// text is still there after it.
func TestPaletteFromASessionKeepsTheTypedText(t *testing.T) {
	t.Parallel()
	for _, size := range paletteSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, echo, true)
			r.chat()
			r.tm.Type("half a thought")
			r.waitScreen("› half a thought")
			r.keys("ctrl+a", "ctrl+k")
			// The frame after ctrl+k: the text deleted, no palette.
			if f := r.sc.WaitFrame(func(f string) bool { return !strings.Contains(f, "half a thought") }); strings.Contains(f, "Go to") {
				t.Fatalf("ctrl+k in the input opened the palette:\n%s", f)
			}
			r.keys("ctrl+z")
			r.waitScreen("› half a thought")
			r.keys("ctrl+g")
			r.waitScreen("Go to")
			r.keys("esc")
			r.sc.WaitFrame(func(f string) bool { return !strings.Contains(f, "Go to") && strings.Contains(f, "› half a thought") })
			r.keys("ctrl+g")
			r.waitScreen("Go to")
			r.sc.Keys("/context")
			r.waitScreen("› command  /context")
			r.keys("enter")
			r.waitScreen("System prompt for")
			r.keys("esc")
			r.sc.WaitFrame(func(f string) bool {
				return !strings.Contains(f, "System prompt for") && strings.Contains(f, "› half a thought")
			})
			r.final()
		})
	}
}

// ctrl+k over a page or a dialog opens nothing, as before, but says why
// and what to do; ctrl+g too, also in a page's text field, where ctrl+k
// still deletes to the line end.
func TestPaletteKeyOverAPageSaysWhy(t *testing.T) {
	t.Parallel()
	const page = "close this page first (esc) to open the palette"
	f := newFixture(t)
	f.add("src/shop", "shop", true)
	f.write("src/shop/AGENTS.md", "keep this line\n")
	s := f.run(80, 24)
	s.waitScreen("› shop")
	s.keys("enter", "i")
	s.waitScreen("Chain for the project root")
	s.keys("ctrl+k")
	s.waitScreen("Chain for the project root", page)
	s.keys("down") // the next key clears the notice
	s.sc.WaitFrame(func(f string) bool { return !strings.Contains(f, page) })
	s.keys("ctrl+g")
	s.waitScreen("Chain for the project root", page)
	s.keys("esc")
	s.waitScreen("› shop")
	// Over a dialog (the row menu): esc may not be how to leave one (an
	// approval's esc denies), so the notice does not name it.
	s.keys("enter")
	s.waitScreen("Show instructions")
	s.keys("ctrl+k")
	s.waitScreen("Show instructions", "answer or close this dialog first to open the palette")
	// In the AGENTS.md editor ctrl+k deletes to the line end; ctrl+g says
	// why the palette does not open.
	s.keys("a")
	s.waitScreen("keep this line")
	s.keys("ctrl+k")
	s.sc.WaitFrame(func(f string) bool { return !strings.Contains(f, "keep this line") && !strings.Contains(f, page) })
	s.keys("ctrl+g")
	s.waitScreen(page)
	if f := s.final(); strings.Contains(f, "Go to") {
		t.Errorf("the palette opened over a page:\n%s", f)
	}
}

// A project's folder in a palette row loses its middle, not its end
// ("~/src/very/deeply/nested/folders/that/go/on…"): the last folders, which
// tell two projects apart, stay, and a missing folder still says so. A
// session's row keeps its project's name beside a long first message, which
// is cut with "…".
func TestPaletteRowKeepsTheLastFolders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	deep := "src/very/deeply/nested/folders/that/go/on/and/on/acme-storefront"
	f.add(deep, "acme-storefront", true)
	f.add("src/old/clients/2019/archive/warehouse-importer", "warehouse", true)
	if err := os.RemoveAll(filepath.Join(f.home, "src/old")); err != nil {
		t.Fatal(err)
	}
	plantSession(t, f.home, deep, "0190d7a0-0000-7000-8000-000000000001",
		"rework the checkout flow so that a guest can pay without an account and keep the basket", "", 1)
	s := f.run(80, 24)
	s.waitScreen("acme-storefront")
	s.keys("ctrl+k")
	s.sc.Keys("acme")
	frame := s.sc.WaitFrame(func(f string) bool {
		return strings.Contains(f, "project  acme-storefront") && strings.Contains(f, "session  rework")
	})
	assertFrame(t, frame, 80, 24)
	row := func(prefix string) string {
		for _, l := range strings.Split(frame, "\n") {
			if i := strings.Index(l, prefix); i >= 0 {
				return strings.TrimRight(strings.Trim(strings.TrimSpace(l[i:]), "│"), " ")
			}
		}
		t.Fatalf("no row %q:\n%s", prefix, frame)
		return ""
	}
	if got := row("project  acme-storefront"); !strings.HasPrefix(got, "project  acme-storefront  ~/src/") ||
		!strings.Contains(got, "/…/") || !strings.HasSuffix(got, "/on/and/on/acme-storefront") {
		t.Errorf("the project's row: %q", got)
	}
	if got := row("session  rework"); !strings.HasSuffix(got, "…  acme-storefront") {
		t.Errorf("the session's row does not name its project: %q", got)
	}
	for range 4 {
		s.keys("backspace")
	}
	s.sc.Keys("warehouse")
	frame = s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "project  warehouse") })
	if got := row("project  warehouse"); !strings.HasSuffix(got, "/warehouse-importer · folder missing") || strings.Contains(got, "…") && !strings.Contains(got, "/…/") {
		t.Errorf("the missing project's row: %q", got)
	}
	s.final()
}
