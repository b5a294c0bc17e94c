package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/internal/screentest"
)

// settingsCursorRows are what the Settings tab shows under the cursor,
// row by row, with five approval rules of one project: the settings, the
// lines for reading (each provider's guidance, the paths) and the rules.
var settingsCursorRows = []string{
	"› Global instructions", "› Subdirectory context", "› Default model", "› Default thinking",
	"› Permission mode", "› Runtime idle TTL", "› Engine", "› Live pi runtimes",
	"› anthropic ", "› openai ", "› openai-codex ", "› azure-openai-responses ",
	"› google ", "› google-gemini-cli ", "› google-vertex ",
	"› agent dir ", "› data dir ", "› database ",
	"›   bash   make check-1", "›   bash   make check-2", "›   bash   make check-3",
	"›   bash   make check-4", "›   bash   make check-5",
}

// settingsWithRules is a program on the Settings tab, its five approval
// rules below the screen at 80×24.
func settingsWithRules(t *testing.T, w, h int) (*fixture, *session) {
	t.Helper()
	f := newFixture(t)
	f.add("src/proj", "proj", true)
	for i := range 5 {
		if err := f.host.Approvals.Add(context.Background(), f.dir("src/proj"), approvals.Rule{Tool: "bash", Pattern: fmt.Sprintf("make check-%d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	s := f.run(w, h)
	s.waitFor("proj")
	s.keys("3")
	s.waitFor("› Global instructions") // loaded
	return f, s
}

// cursorOnScreen waits for the frame whose cursor row is want and checks
// that it is a whole screen with the tab's title on top: the row is on
// screen, not below it.
func cursorOnScreen(t *testing.T, s *session, h int, want string) string {
	t.Helper()
	frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, want) })
	lines := strings.Split(frame, "\n")
	if len(lines) != h || !strings.HasPrefix(lines[1], "Settings  enter change") {
		t.Fatalf("with %q under the cursor the screen is not %d lines under the title:\n%s", want, h, frame)
	}
	if strings.Count(frame, "›") != 1 {
		t.Errorf("more than one cursor:\n%s", frame)
	}
	return frame
}

// Walking j from the first setting to the last approval rule keeps the
// cursor's row on the screen at every step, at 80×24 and on the smallest
// screen pi-tui draws; d then asks about the rule the user sees, and j
// past the end stays there.
func TestSettingsScrollsAt80x24(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {MinWidth, MinHeight}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f, s := settingsWithRules(t, size.w, size.h)
			cursorOnScreen(t, s, size.h, settingsCursorRows[0])
			for _, want := range settingsCursorRows[1:] {
				s.keys("j")
				cursorOnScreen(t, s, size.h, want)
			}
			s.keys("j") // past the end: it stays
			last := cursorOnScreen(t, s, size.h, settingsCursorRows[len(settingsCursorRows)-1])
			if !strings.Contains(last, "make check-5") {
				t.Fatalf("the last rule is not on screen:\n%s", last)
			}
			s.keys("d")
			asked := s.sc.WaitFrame(func(f string) bool {
				return strings.Contains(string(screentest.Prose([]byte(f))), "Delete the rule bash make check-5 of proj?")
			})
			if !strings.Contains(asked, "Delete approval rule") {
				t.Errorf("d asked something else:\n%s", asked)
			}
			s.keys("n")
			s.sc.WaitFrame(func(f string) bool { return !strings.Contains(f, "Delete approval rule") })
			s.final()
			if rules, err := f.host.Approvals.All(context.Background()); err != nil || len(rules[f.dir("src/proj")]) != 5 {
				t.Errorf("n deleted a rule: %v, %v", rules, err)
			}
		})
	}
}

// home goes to the first row and end to the last, from anywhere and at
// any size: home changes no setting (the permission mode stays), end
// shows the last rule.
func TestSettingsHomeAndEnd(t *testing.T) {
	t.Parallel()
	f, s := settingsWithRules(t, 80, 24)
	before, err := f.host.Preferences(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.keys("j", "j", "j", "j") // on the permission mode, where enter would cycle it
	cursorOnScreen(t, s, 24, "› Permission mode")
	s.keys("end")
	cursorOnScreen(t, s, 24, "›   bash   make check-5")
	s.keys("home")
	frame := cursorOnScreen(t, s, 24, "› Global instructions")
	if !strings.Contains(frame, "Permission mode       ask") {
		t.Errorf("the permission mode changed:\n%s", frame)
	}
	s.keys("j", "j", "j", "j", "home")
	cursorOnScreen(t, s, 24, "› Global instructions")
	s.keys("end")
	cursorOnScreen(t, s, 24, "›   bash   make check-5")
	view := s.final()
	if p, err := f.host.Preferences(context.Background()); err != nil || p != before {
		t.Errorf("home or end changed a setting: %+v, %v", p, err)
	}
	if strings.Contains(view, "written to") || strings.Contains(view, "permission mode:") {
		t.Errorf("home or end changed a setting:\n%s", view)
	}
}

// settingsReadRows are the rows under the cursor after the settings with
// no approval rules: each provider's guidance, the paths and "none yet".
var settingsReadRows = []string{
	"› anthropic ", "› openai ", "› openai-codex ", "› azure-openai-responses ",
	"› google ", "› google-gemini-cli ", "› google-vertex ",
	"› agent dir ", "› data dir ", "› database ", "› none yet",
}

// lookingForPi is what the Engine row says until the look for pi ends.
const lookingForPi = "looking for pi"

// unmarked is a frame read across its lines without the cursor's mark.
func unmarked(frame string) string { return squeezed(strings.ReplaceAll(frame, "›", "")) }

// settingsAt is a program on the Settings tab, loaded, with no approval
// rules.
func settingsAt(t *testing.T, f *fixture, w, h int) *session {
	t.Helper()
	s := f.run(w, h)
	s.waitFor("Projects")
	s.keys("3")
	s.waitFor("› Global instructions")
	return s
}

// Everything Settings shows at 120×40 can be brought into view at 80×24
// and on the smallest screen: with no approval rules, end, pgdn and j
// stopped on the last setting, and the paths and "Approval rules … none
// yet" below it could never be seen. Walking j shows every line the big
// screen shows, the cursor on screen at every step; end and pgdn reach
// the last line.
func TestSettingsEveryLineCanBeScrolledTo(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {MinWidth, MinHeight}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			want := settingsLinesAt120x40(t, f)
			s := settingsAt(t, f, size.w, size.h)
			seen := unmarked(cursorOnScreen(t, s, size.h, settingsCursorRows[0]))
			rows := append(append([]string{}, settingsCursorRows[1:8]...), settingsReadRows...)
			for _, row := range rows {
				s.keys("j")
				// The Engine row says "looking for pi…" until the look ends.
				s.sc.WaitFrame(func(fr string) bool { return strings.Contains(fr, row) && !strings.Contains(fr, lookingForPi) })
				seen += "\n" + unmarked(cursorOnScreen(t, s, size.h, row))
			}
			for _, l := range want {
				if !strings.Contains(seen, l) {
					t.Errorf("%q, shown at 120×40, never came into view", l)
				}
			}
			s.keys("home")
			cursorOnScreen(t, s, size.h, settingsCursorRows[0])
			s.keys("end")
			last := unmarked(cursorOnScreen(t, s, size.h, "› none yet"))
			if !strings.Contains(last, "database~/data/pi-tui.db") || !strings.Contains(last, "Approvalrules") {
				t.Errorf("end does not show the paths' end and the approval rules:\n%s", last)
			}
			s.keys("home")
			cursorOnScreen(t, s, size.h, settingsCursorRows[0])
			for range len(rows) {
				s.keys("pgdown")
			}
			cursorOnScreen(t, s, size.h, "› none yet")
			s.final()
		})
	}
}

// settingsLinesAt120x40 are the Settings tab's lines below its title at
// 120×40, where it all fits, read without white space or the cursor.
func settingsLinesAt120x40(t *testing.T, f *fixture) []string {
	t.Helper()
	big := settingsAt(t, f, 120, 40)
	frame := big.sc.WaitFrame(func(fr string) bool {
		return strings.Contains(fr, "none yet") && !strings.Contains(fr, lookingForPi)
	})
	big.final()
	lines := strings.Split(frame, "\n")
	var want []string // above the status bar
	for _, l := range lines[3 : len(lines)-1] {
		if l = unmarked(l); l != "" {
			want = append(want, l)
		}
	}
	if len(want) < 25 || !strings.Contains(strings.Join(want, "\n"), "database~/data/pi-tui.db") {
		t.Fatalf("120×40 does not show the whole tab:\n%s", frame)
	}
	return want
}

// memEngine keeps the engine preference the way the core's services
// will (settings.EngineSettings), for the Settings rows until they
// do.
type memEngine struct {
	mu     sync.Mutex
	engine string
	maxPi  int
}

func (e *memEngine) EnginePreferences(context.Context) (string, int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.engine, e.maxPi, nil
}

func (e *memEngine) SetEngine(_ context.Context, v string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch v {
	case "auto", "pi", "builtin":
		e.engine = v
		return nil
	}
	return fmt.Errorf("unknown engine %q", v)
}

func (e *memEngine) SetMaxPiRuntimes(_ context.Context, n int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.maxPi = n
	return nil
}

func (e *memEngine) get() (string, int) {
	v, n, _ := e.EnginePreferences(context.Background())
	return v, n
}

// fakePi writes an executable that answers --version with version.
func fakePi(t *testing.T, dir, version string) string {
	t.Helper()
	p := filepath.Join(dir, "pi")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho "+version+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// The Engine row says which engine runs and which pi was found (running
// it with --version), and enter cycles auto → pi → builtin; the Live pi
// runtimes row cycles the cap. A pi whose RPC pi-tui does not speak is
// named with its version.
func TestSettingsEngineRows(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	f.env["PI_TUI_PI"] = fakePi(t, f.dir("bin"), "1.6.0")
	eng := &memEngine{engine: "auto", maxPi: 4}
	m := f.model()
	m.settings.SetEngineSettings(eng)
	s := newSession(t, m, 140, 40)
	s.waitFor("› proj")
	s.keys("3")
	s.waitFor("Engine                auto — runs pi 1.6.0 (~/bin/pi)", "Live pi runtimes      4 — pi processes alive at once")
	for range 6 {
		s.keys("down")
	}
	s.keys("enter")
	s.waitFor("engine: pi", "Engine                pi — runs pi 1.6.0 (~/bin/pi)")
	s.keys("enter")
	s.waitFor("builtin — pi-tui's own engine; pi 1.6.0 (~/bin/pi) is not used")
	if v, _ := eng.get(); v != "builtin" {
		t.Fatalf("engine stored: %q", v)
	}
	s.keys("down", "enter")
	s.waitFor("live pi runtimes: at most 8", "Live pi runtimes      8 —")
	if _, n := eng.get(); n != 8 {
		t.Fatalf("cap stored: %d", n)
	}

	// An unsupported pi (upgraded in place: another size, so asked
	// again), seen when the tab is read again (r).
	fakePi(t, f.dir("bin"), "0.12.0")
	// Each press waits for the row's new value in a frame: a notice
	// repeated word for word is not drawn again.
	s.keys("up", "enter") // builtin → auto
	s.waitScreen("engine: auto", "Engine                auto")
	s.keys("enter")
	s.waitScreen("engine: pi", "Engine                pi")
	s.keys("r")
	s.waitFor("pi — sessions cannot start: pi 0.12.0 at ~/bin/pi speaks an RPC pi-tui does not support")
	s.final()
}

// Settings shows an approval rule made elsewhere (A in a chat) as soon
// as the tab is shown again, without r.
func TestSettingsReloadsWhenShown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	s := f.run(120, 40) // the rules on the first screen: Settings' lines wrap
	s.waitFor("› proj")
	s.keys("3")
	s.waitFor("Approval rules")
	s.keys("1")
	s.waitFor("› proj")
	root := filepath.Join(f.home, "proj")
	if err := f.host.Approvals.Add(context.Background(), root, approvals.Rule{Tool: "bash", Pattern: "go vet *"}); err != nil {
		t.Fatal(err)
	}
	s.keys("tab", "tab")
	s.waitFor("go vet *")
	s.final()
}

// Settings says whole what is wrong: its keys, the command palette's
// among them, wrap under its title; the Engine row says how to get pi;
// the `!` lines under the last setting (shown once the cursor is past it)
// and the status bar's warnings wrap instead of running off the screen.
func TestSettingsSentencesWrap(t *testing.T) {
	t.Parallel()
	for _, size := range narrowSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.write(".pi/agent/settings.json", "{\"defaultProvider\": \"anthropic\",\n \"defaultModel\": 3, \"x\": }")
			f.write(".pi/agent/models.json", `{"providers": {"fake": {"baseUrl": 3}}}`)
			s := f.run(size.w, size.h)
			const settingsBad = "⚠ ~/.pi/agent/settings.json:2:26 is not valid JSON (see Settings)"
			const modelsBad = "~/.pi/agent/models.json is not valid JSON at line 1, column 36: providers.baseUrl must be a string, not number"
			frame := s.waitWhole("No projects yet", settingsBad, modelsBad)
			assertFrame(t, frame, size.w, size.h)
			s.keys("3")
			frame = s.waitKeys("Settings enter change · ↑/↓ move · d delete rule · r reload · ctrl+k command palette · ? help", "› Global instructions")
			assertFrame(t, frame, size.w, size.h)
			for range 6 {
				s.keys("down")
			}
			frame = s.waitWhole("› Engine auto — runs the built-in engine: pi not found: install pi (npm install -g @earendil-works/pi-coding-agent) or set PI_TUI_PI to its path")
			assertFrame(t, frame, size.w, size.h)
			s.keys("down", "down") // past the last setting: its warnings show
			frame = s.waitWhole("› anthropic", "! "+modelsBad, "! ~/.pi/agent/settings.json is not valid JSON at line 2, column 26")
			assertFrame(t, frame, size.w, size.h)
			s.final()
		})
	}
}
