package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/ui/projects"
)

// A project added by another process (the CLI: its own store handle, its
// own event broker) shows in a running UI without a key pressed: the
// Projects tab notices the database files changed. The tab looks every
// few milliseconds here instead of every 2 s, so the test waits for the
// look, not for the clock.
func TestProjectAddedByAnotherProcessShows(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("src/shop", "shop", true)
	m := f.model()
	m.projects.SetPolls(projects.Polls{Stamp: 20 * time.Millisecond})
	s := newSession(t, m, 100, 30)
	s.waitFor("› shop")
	cli, err := host.Open(context.Background(), f.host.Places, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, _, err := cli.Projects.Add(context.Background(), f.dir("src/shed"), "shed", false); err != nil {
		t.Fatal(err)
	}
	s.waitFor("shed", "~/src/shed")
}

func TestRowMenuArchivePinRemove(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("alpha", "alpha", false)
	f.add("beta", "beta", false)
	s := f.run(100, 30)
	s.waitFor("alpha", "beta")
	s.keys("enter", "p") // pin the first row
	s.waitFor("Pinned (1)")
	s.keys("enter", "x") // archive it
	s.waitFor("Archived (1)")
	list, _ := f.host.Projects.List(context.Background(), true)
	archived := 0
	for _, p := range list {
		if p.Archived {
			archived++
		}
	}
	if archived != 1 {
		t.Fatalf("%d archived", archived)
	}
	// Archived projects are shown on request: enter on the folded
	// heading opens it; x acts on the row directly.
	s.keys("G", "enter", "G", "x") // restore it
	s.waitFor("restored")
	s.keys("enter", "D")
	s.waitFor("stays on disk", "Press D again")
	s.keys("D")
	s.waitFor("the folder was kept")
	list, _ = f.host.Projects.List(context.Background(), true)
	if len(list) != 1 {
		t.Errorf("%d projects after removing one", len(list))
	}
	for _, d := range []string{"alpha", "beta"} {
		if _, err := os.Stat(filepath.Join(f.home, d)); err != nil {
			t.Errorf("folder %s was touched: %v", d, err)
		}
	}
	s.final()
}

func TestFilterKeepsLettersAndMissingFolderMenu(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("quartz", "quartz", true)
	f.add("gone", "gone", true)
	os.RemoveAll(filepath.Join(f.home, "gone"))
	s := f.run(100, 30)
	s.waitFor("quartz", "folder missing")
	s.keys("/")
	s.tm.Type("q") // a letter for the filter, not quit
	s.waitFor("/q")
	s.keys("esc", "/")
	s.tm.Type("gon")
	s.keys("enter", "enter") // leave the filter, open the only match's menu
	s.waitFor("gone (folder missing)")
	final := s.final()
	for _, absent := range []string{"Open session", "Edit AGENTS.md", "Show instructions"} {
		if strings.Contains(final, absent) {
			t.Errorf("the menu of a vanished folder offers %q:\n%s", absent, final)
		}
	}
	for _, present := range []string{"Rename", "Remove", "Edit memory"} {
		if !strings.Contains(final, present) {
			t.Errorf("the menu of a vanished folder lacks %q", present)
		}
	}
}

// A long project folder keeps the part that tells it apart: its last
// folders, whole, with the middle left out ("~/src/…/the/projects/shop"),
// where the row was cut at its end ("~/src/very/deeply/nested/…").
func TestProjectRowKeepsTheLastFolders(t *testing.T) {
	t.Parallel()
	deep := "src/very/deeply/nested/folders/that/hold/all/of/the/projects/"
	for _, size := range trialSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			xs := strings.Repeat("x", size.w/2)
			long := deep + xs + "/shop"
			f.add(long, "shop", true)
			f.add(long+"-admin", "shop admin", true)
			s := f.run(size.w, size.h)
			frame := s.sc.WaitFrame(func(fr string) bool {
				return strings.Contains(fr, "/shop\n") || strings.Contains(fr, "/shop ")
			})
			rows := 0
			for _, l := range strings.Split(frame, "\n") {
				l = strings.TrimRight(l, " ")
				name, path, ok := strings.Cut(strings.TrimLeft(l, "› "), "  ")
				if !ok || !strings.HasPrefix(name, "shop") {
					continue
				}
				rows++
				want := "/" + xs + "/shop"
				if name == "shop admin" {
					want += "-admin"
				}
				if !strings.HasPrefix(path, "~/") || !strings.Contains(path, "/…/") || !strings.HasSuffix(path, want) {
					t.Errorf("the row of %s shows its folder as %q, want ~/…/ and the end %q", name, path, want)
				}
			}
			if rows != 2 {
				t.Errorf("%d rows of shop found:\n%s", rows, frame)
			}
			assertFrame(t, frame, size.w, size.h)
			// Show instructions names the folder in its header, one line
			// beside the project's name: its last folders stay there too.
			s.keys("i")
			frame = s.sc.WaitFrame(func(fr string) bool { return strings.Contains(fr, "Chain for the project root") })
			head := ""
			for _, l := range strings.Split(frame, "\n") {
				if strings.HasPrefix(l, "Instructions · shop") {
					head = strings.TrimRight(l, " ")
				}
			}
			end := "/shop"
			if strings.HasPrefix(head, "Instructions · shop admin") {
				end = "/shop-admin"
			}
			if !strings.Contains(head, "  ~/") || !strings.Contains(head, "/…/") || !strings.HasSuffix(head, end) {
				t.Errorf("the instructions header shows the folder as %q, want ~/…/ and the end %s", head, end)
			}
			assertFrame(t, frame, size.w, size.h)
			s.final()
		})
	}
}

// The Projects tab's keys name the command palette; the hint line wraps
// between two keys rather than being cut, and the key it names opens the
// palette.
func TestProjectsHintNamesThePalette(t *testing.T) {
	t.Parallel()
	for _, size := range narrowSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.add(deepProject, "shop", true)
			s := f.run(size.w, size.h)
			frame := s.waitKeys("enter menu · o open · m memory · g group · n add · / filter · s sort · ctrl+k command palette · ? help", "› shop")
			assertFrame(t, frame, size.w, size.h)
			s.keys("ctrl+k")
			s.waitScreen("Go to", "a session, project, setting or command")
			s.final()
		})
	}
}

// Sessions pi began in a project's folder are counted on its Projects row
// once the UI has looked at the folders, without the user opening it.
func TestSessionsBegunInPiAreCounted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	dir := pisession.SessionsDir(filepath.Join(f.home, ".pi", "agent"), filepath.Join(f.home, "proj"))
	os.MkdirAll(dir, 0o700)
	for _, id := range []string{"0190d7a0-0000-7000-8000-000000000001", "0190d7a0-0000-7000-8000-000000000002"} {
		header := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-12-01T00:00:00.000Z","cwd":"` + filepath.Join(f.home, "proj") + `"}` + "\n"
		os.WriteFile(filepath.Join(dir, "2026-12-01T00-00-00-000Z_"+id+".jsonl"), []byte(header), 0o600)
	}
	s := f.run(120, 30)
	s.waitFor("2 sessions")
	s.final()
}
