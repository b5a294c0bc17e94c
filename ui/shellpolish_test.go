package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// What a second fresh-eyes trial of issue 24's palette, plan mode and
// dialogs found at 80×24 (and 60×16, the smallest screen pi-tui draws).

// barState is the state on the right of the status bar: the bottom
// line's last run of text after two spaces (a notice may be on its left).
func barState(frame string) string {
	runs := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(lastLine(frame)), -1)
	return runs[len(runs)-1]
}

// The status bar's state leaves out whole parts, the least needed first,
// instead of being cut mid-word at the screen's edge ("… · thinking: off
// (mo", "runtime: work"): where the model comes from and the thinking
// level's reason go before the model, and the engine before the model's
// source where only one fits; the runtime's state and plan mode always
// show. Each state is asserted whole, as the frame shows it.
func TestStatusBarLeavesOutWholeParts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		w, h                   int
		working, idle, planned string
	}{
		{80, 24,
			"model: fake/m1 (first in models.json) · thinking: off · runtime: working",
			"model: fake/m1 (first in models.json) · thinking: off (model) · runtime: idle",
			"plan mode · model: fake/m1 · thinking: off (model) · runtime: idle · builtin"},
		{60, 16,
			"model: fake/m1 · thinking: off (model) · runtime: working",
			"model: fake/m1 · thinking: off · runtime: idle · builtin",
			"plan mode · model: fake/m1 · thinking: off · runtime: idle"},
	} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			hold := make(chan struct{})
			fake := fakemodel.New(t, func(int, fakemodel.Request) fakemodel.Reply {
				return fakemodel.Reply{Text: "pong and the rest", Hold: hold}
			})
			f.write(".pi/agent/models.json", fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"k","models":[{"id":"m1"}]}}}`, fake.URL))
			f.add("proj", "proj", true)
			r := &kitRig{session: f.run(c.w, c.h)}
			state := func(want string) {
				t.Helper()
				frame := r.sc.WaitFrame(func(f string) bool { return barState(f) == want })
				assertFrame(t, frame, c.w, c.h)
			}
			r.waitScreen("› proj")
			state("model: fake/m1 (first in models.json) · runtime: none")
			r.keys("enter", "o")
			r.waitFor("No sessions yet")
			r.keys("n")
			r.waitFor("Type a message")
			state(c.idle) // the runtime has started, and said what it runs
			r.say("ping")
			r.waitFor("pong")
			state(c.working)
			close(hold)
			r.waitFor("the rest")
			state(c.idle)
			r.command("/plan", "plan mode on")
			state(c.planned)
			r.final()
		})
	}
}

// A warning is never left out nor cut: too long for one line beside the
// state, it wraps over lines of its own above it, and the status bar
// takes the lines it needs.
func TestStatusBarWrapsALongWarning(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write(".pi/agent/settings.json", `{"defaultProvider": `)
	f.write(".pi/agent/agent-guidance.json", `[1,`)
	s := f.run(60, 16)
	warn := squeezed("⚠ ~/.pi/agent/settings.json:1:20 is not valid JSON (see Settings) · agent-guidance.json is invalid (see Settings)")
	frame := s.sc.WaitFrame(func(f string) bool {
		return strings.Contains(squeezed(f), warn) && barState(f) == "model: no model (see Settings) · runtime: none"
	})
	assertFrame(t, frame, 60, 16)
	lines := strings.Split(frame, "\n")
	if bar := strings.Join(lines[len(lines)-3:], "\n"); strings.Contains(bar, "…") {
		t.Errorf("the status bar is cut:\n%s", bar)
	}
	s.final()
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

// boxEdges checks that the dialog box holding title is drawn with
// nothing beside it: the cells around its border are blank, so no edge
// of the dialog beneath shows as a second border ("╭╭──…╮╮").
func boxEdges(t *testing.T, frame, title string) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	grid := make([][]rune, len(lines))
	for i, l := range lines {
		grid[i] = []rune(l)
	}
	at := func(y, x int) rune {
		if y < 0 || y >= len(grid) || x < 0 || x >= len(grid[y]) {
			return ' '
		}
		return grid[y][x]
	}
	ty, tx := -1, -1
	for y, l := range lines {
		if i := strings.Index(l, title); i >= 0 {
			ty, tx = y, len([]rune(l[:i]))
			break
		}
	}
	if ty < 0 {
		t.Fatalf("no %q on screen:\n%s", title, frame)
	}
	left := tx
	for left >= 0 && at(ty, left) != '│' {
		left--
	}
	top, bottom, right := ty, ty, left+1
	for top >= 0 && at(top, left) != '╭' {
		top--
	}
	for bottom < len(grid) && at(bottom, left) != '╰' {
		bottom++
	}
	for right < len(grid[top]) && at(top, right) != '╮' {
		right++
	}
	if left < 0 || top < 0 || bottom >= len(grid) || right >= len(grid[top]) {
		t.Fatalf("no box around %q:\n%s", title, frame)
	}
	for y := top - 1; y <= bottom+1; y++ {
		for x := left - 1; x <= right+1; x++ {
			if y >= top && y <= bottom && x >= left && x <= right {
				continue
			}
			if r := at(y, x); r != ' ' {
				t.Errorf("%q beside the box of %q (line %d, column %d):\n%s", r, title, y, x, frame)
				return
			}
		}
	}
}

// A dialog opened over another (in an approval: r asks for a reason, A
// opens the rule editor, ctrl+c asks whether to quit) is drawn with a
// clear cell around it, so nothing of the approval beneath shows at its
// edges as a doubled border.
func TestDialogOverADialogShowsNothingAtItsEdges(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 80, 24, bashOnce("touch X", nil), true)
	r.chat()
	r.say("run it")
	r.waitFor("Allow bash?")
	r.settle()
	for _, c := range []struct{ key, title, back string }{
		{"r", "Deny bash: why?", "esc"},
		{"A", "Always allow bash in proj", "esc"},
		{"ctrl+c", "Quit pi-tui?", "n"},
	} {
		r.keys(c.key)
		frame := r.sc.WaitFrame(func(f string) bool { return strings.Contains(f, c.title) })
		boxEdges(t, frame, c.title)
		for _, doubled := range []string{"╭╭", "╮╮", "││", "╰╰", "╯╯"} {
			if strings.Contains(frame, doubled) {
				t.Errorf("%s: a doubled border %q:\n%s", c.key, doubled, frame)
			}
		}
		r.keys(c.back)
		r.sc.WaitFrame(func(f string) bool { return !strings.Contains(f, c.title) && strings.Contains(f, "Allow bash?") })
	}
	r.keys("n")
	r.waitFor("tool said: The user denied")
	r.final()
}

// fitParts gives way lowest rank first, to a shorter form or out, then
// brings back what fits again; parts to keep stay however wide.
func TestFitPartsGivesWayLowestFirst(t *testing.T) {
	parts := func() []statusPart {
		return []statusPart{
			part("plan mode", keep),
			shortened("model: fake/m1 (first in models.json)", 3, "model: fake/m1", 5),
			shortened("thinking: off (model)", 1, "thinking: off", 4),
			part("runtime: idle", keep),
			part("builtin", 2),
		}
	}
	for _, c := range []struct {
		width int
		want  string
	}{
		{200, "plan mode · model: fake/m1 (first in models.json) · thinking: off (model) · runtime: idle · builtin"},
		{78, "plan mode · model: fake/m1 · thinking: off (model) · runtime: idle · builtin"},
		{58, "plan mode · model: fake/m1 · thinking: off · runtime: idle"},
		{40, "plan mode · runtime: idle · builtin"}, // the engine fits where the thinking level does not
		{10, "plan mode · runtime: idle"},           // for the caller to wrap
	} {
		if got := fitParts(parts(), c.width); got != c.want {
			t.Errorf("at %d: %q, want %q", c.width, got, c.want)
		}
	}
}
