package palette

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/fuzzy"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// went records where enter went.
type went struct{ to string }

func newUI() *common.UI { return common.NewUI(common.NewStyles(lipgloss.NewRenderer(io.Discard))) }

// open returns a palette over ps and ss with items, loaded as a program
// would load it: Init's command, then the next one it hands on.
func open(t testing.TB, ps []registry.Project, ss []sessions.Summary, items []Item, w *went) *Model {
	t.Helper()
	d := Deps{UI: newUI(), Home: "/home/u",
		Projects:    func(context.Context) ([]registry.Project, error) { return ps, nil },
		Sessions:    func(context.Context) ([]sessions.Summary, error) { return ss, nil },
		OpenProject: func(p registry.Project) tea.Cmd { w.to = "project " + p.Name; return nil },
		OpenSession: func(p registry.Project, s sessions.Summary) tea.Cmd {
			w.to = "session " + s.ID + " of " + p.Name
			return nil
		},
	}
	m := New(d, items)
	load(m, m.Init())
	return m
}

// load runs a load command and the one it hands on, as the program does.
func load(m *Model, cmd tea.Cmd) {
	for cmd != nil {
		_, cmd = m.Update(cmd())
	}
}

func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func shown(m *Model) []string {
	var out []string
	for _, i := range m.rows.Items() {
		e := m.idx.entries[i]
		out = append(out, e.kind.String()+" "+e.title)
	}
	return out
}

// Results are ranked as `@` ranks files, by the same matcher: the query
// in what names an entry (a project's name, a session's title or first
// message) before the query only in what places it (a session's project,
// a project's folder); the whole name first; ties to the shorter text.
func TestRanksAsAtDoes(t *testing.T) {
	ps := []registry.Project{{ID: "p1", Name: "login", Root: "/home/u/src/auth"}, {ID: "p2", Name: "shop", Root: "/home/u/src/login-shop"}}
	ss := []sessions.Summary{
		{ID: "s1", ProjectID: "p2", FirstMessage: "fix the login form", UpdatedAt: 3},
		{ID: "s2", ProjectID: "p1", FirstMessage: "rename a variable", UpdatedAt: 2},
		{ID: "s3", ProjectID: "p2", Title: "Login page", FirstMessage: "start", UpdatedAt: 1},
	}
	m := open(t, ps, ss, []Item{{Kind: KindCommand, Title: "Log out"}}, &went{})
	typeText(m, "login")
	want := []string{"project login", "session Login page", "session fix the login form", "project shop", "session rename a variable"}
	if got := shown(m); !slices.Equal(got, want) {
		t.Fatalf("login: got %q\nwant %q", got, want)
	}
	// The order is the matcher's own, over the palette's texts.
	top, _ := fuzzy.NewMatcher(m.idx.texts).Top("login", maxRows)
	for i, t2 := range top {
		if m.rows.Items()[i] != t2.Index {
			t.Fatalf("row %d is not the matcher's", i)
		}
	}
}

// Enter goes to the highlighted entry (after the highlight moved with
// ↓ and ctrl+p/ctrl+n) and closes the palette; esc closes it.
func TestEnterGoesThereEscCloses(t *testing.T) {
	ps := []registry.Project{{ID: "p1", Name: "shop", Root: "/home/u/shop"}}
	ss := []sessions.Summary{{ID: "s1", ProjectID: "p1", FirstMessage: "one", UpdatedAt: 2}, {ID: "s2", ProjectID: "p1", FirstMessage: "two", UpdatedAt: 1}}
	ran := false
	for _, c := range []struct {
		keys []tea.KeyType
		want string
	}{
		{nil, "session s1 of shop"},
		{[]tea.KeyType{tea.KeyDown}, "session s2 of shop"},
		{[]tea.KeyType{tea.KeyCtrlN, tea.KeyCtrlN}, "project shop"},
		{[]tea.KeyType{tea.KeyCtrlN, tea.KeyCtrlN, tea.KeyCtrlN, tea.KeyCtrlP, tea.KeyDown}, "ran"},
	} {
		var w went
		m := open(t, ps, ss, []Item{{Kind: KindCommand, Title: "Add project…", Run: func() tea.Cmd { ran = true; return nil }}}, &w)
		for _, k := range c.keys {
			m.Update(tea.KeyMsg{Type: k})
		}
		m.Update(tea.KeyMsg{Type: tea.KeyEnter})
		if ran {
			w.to = "ran"
		}
		if w.to != c.want {
			t.Errorf("%v then enter went to %q, want %q", c.keys, w.to, c.want)
		}
		if ops := m.d.UI.Nav.Drain(); len(ops) != 1 || ops[0].Close != common.Layer(m) {
			t.Errorf("enter did not close the palette: %v", ops)
		}
	}
	m := open(t, ps, ss, nil, &went{})
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if ops := m.d.UI.Nav.Drain(); len(ops) != 1 || ops[0].Close != common.Layer(m) {
		t.Errorf("esc did not close the palette: %v", ops)
	}
	if m.ctx.Err() == nil {
		t.Error("closing left the palette's loads running")
	}
}

// While the sessions are read, what is already there is searched, and a
// highlight the user moved stays on its entry when they arrive.
func TestSessionsArriveUnderTheHighlight(t *testing.T) {
	ps := []registry.Project{{ID: "p1", Name: "alpha", Root: "/a"}, {ID: "p2", Name: "beta", Root: "/b"}}
	d := Deps{UI: newUI(), Projects: func(context.Context) ([]registry.Project, error) { return ps, nil },
		Sessions: func(context.Context) ([]sessions.Summary, error) {
			return []sessions.Summary{{ID: "s1", ProjectID: "p1", FirstMessage: "hello"}}, nil
		}}
	m := New(d, nil)
	_, next := m.Update(m.Init()())
	if m.loading != "sessions" || !strings.Contains(m.View(80, 22), "reading the sessions…") {
		t.Fatalf("while reading sessions: %q\n%s", m.loading, m.View(80, 22))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	if got := shown(m); !slices.Equal(got, []string{"project alpha", "project beta"}) {
		t.Fatalf("before the sessions: %q", got)
	}
	m.Update(next())
	if e, _ := m.selected(); e.title != "beta" || len(m.rows.Items()) != 3 {
		t.Fatalf("after the sessions the highlight is on %q of %q", e.title, shown(m))
	}
}

// A read that fails says so in a whole sentence, wrapped in the box; the
// rest stays searchable.
func TestAFailedReadIsSaid(t *testing.T) {
	d := Deps{UI: newUI(), Projects: func(context.Context) ([]registry.Project, error) {
		return nil, errors.New("the database is locked by another program; close it and try again")
	}}
	m := New(d, []Item{{Kind: KindSetting, Title: "Permission mode"}})
	load(m, m.Init())
	view := strings.Join(strings.Fields(strings.ReplaceAll(m.View(60, 22), "│", " ")), " ")
	if !strings.Contains(view, "cannot read the projects: the database is locked by another program; close it and try again") {
		t.Errorf("the error is not shown whole:\n%s", m.View(60, 22))
	}
	typeText(m, "perm")
	if got := shown(m); !slices.Equal(got, []string{"setting Permission mode"}) {
		t.Errorf("searching after the failure: %q", got)
	}
}

// Names from files and models are drawn as text: a control character in
// a session's first message or a project's name is shown, never sent.
func TestControlsAreShownNotSent(t *testing.T) {
	ps := []registry.Project{{ID: "p1", Name: "evil\x1b[2Jname", Root: "/e"}}
	ss := []sessions.Summary{{ID: "s1", ProjectID: "p1", FirstMessage: "clear\x1b]0;title\x07 it"}}
	m := open(t, ps, ss, nil, &went{})
	if v := m.View(100, 30); strings.Contains(v, "\x1b[2J") || strings.Contains(v, "\x1b]0;") || strings.Contains(v, "\x07") {
		t.Errorf("a control reached the view: %q", v)
	}
}

// A row too narrow for its detail keeps what tells it apart, at the
// smallest screen (60 columns): a folder's last names (a project's, a
// command's file), a missing folder's note, a session's project; the
// title is cut with "…" and no row is wider than the box.
func TestNarrowRowsKeepTheEnds(t *testing.T) {
	ps := []registry.Project{
		{ID: "p1", Name: "acme-storefront", Root: "/home/u/src/very/deeply/nested/folders/that/go/on/acme-storefront"},
		{ID: "p2", Name: "warehouse", Root: "/home/u/src/old/clients/2019/archive/warehouse-importer", Missing: true},
	}
	ss := []sessions.Summary{{ID: "s1", ProjectID: "p1", UpdatedAt: 1,
		FirstMessage: "rework the checkout flow so that a guest can pay without an account"}}
	items := []Item{{Kind: KindCommand, Title: "Edit global AGENTS.md", Detail: "~/.config/agents/pi/profiles/work/agent/AGENTS.md", Path: true}}
	m := open(t, ps, ss, items, &went{})
	width := 60
	view := m.View(width, 22)
	defer func() {
		if t.Failed() {
			t.Log(view)
		}
	}()
	row := func(prefix string) string {
		for _, l := range strings.Split(view, "\n") {
			if ansi.StringWidth(l) > width-2 {
				t.Errorf("a line wider than the box: %q", l)
			}
			if i := strings.Index(l, prefix); i >= 0 {
				return strings.TrimSpace(strings.Trim(strings.TrimSpace(l[i:]), "│"))
			}
		}
		t.Fatalf("no row %q:\n%s", prefix, view)
		return ""
	}
	for prefix, end := range map[string]string{
		"project  acme-storefront":    "/on/acme-storefront",
		"project  warehouse":          "/warehouse-importer", // too narrow for the note beside it
		"command  Edit global AGENTS": "/AGENTS.md",
	} {
		if got := row(prefix); !strings.HasSuffix(got, end) || !strings.Contains(got, "  ~/…/") {
			t.Errorf("row %q does not end with %q, its middle left out", got, end)
		}
	}
	// The project keeps two fifths of the row.
	if got := row("session  rework"); !strings.HasSuffix(got, "…  acme-storefro…") {
		t.Errorf("the session's row: %q", got)
	}
	// Wider, the missing folder's note shows beside the folder's end.
	width = 80
	view = m.View(width, 22)
	if got := row("project  warehouse"); !strings.HasSuffix(got, "/warehouse-importer · folder missing") {
		t.Errorf("the missing project's row at 80 columns: %q", got)
	}
}

// The palette's help is its key table.
func TestKeysAreData(t *testing.T) {
	m := New(Deps{UI: newUI()}, nil)
	keytest.Check(t, "palette", m.keys, m.Help())
}

// benchIndex is 2,000 projects of 10 sessions each, with first messages
// of a few dozen words, and the usual commands and settings: 22,030
// entries.
func benchPalette(b *testing.B) *Model {
	words := strings.Fields("fix add the login form checkout cart test flaky retry release notes write docs refactor handler api " +
		"database migration cache invalidate bump version deploy staging config parse error message render table column sort")
	var ps []registry.Project
	var ss []sessions.Summary
	for i := range 2000 {
		id := fmt.Sprintf("p%04d", i)
		ps = append(ps, registry.Project{ID: id, Name: fmt.Sprintf("%s-%s-%d", words[i%len(words)], words[(i/7)%len(words)], i),
			Root: fmt.Sprintf("/home/u/src/%s/%s-%d", words[(i/3)%len(words)], words[i%len(words)], i)})
		for j := range 10 {
			var msg []string
			for k := range 30 {
				msg = append(msg, words[(i*31+j*17+k*7)%len(words)])
			}
			title := ""
			if j%3 == 0 {
				title = strings.Join(msg[:3], " ")
			}
			ss = append(ss, sessions.Summary{ID: fmt.Sprintf("%s-s%d", id, j), ProjectID: id, Title: title,
				FirstMessage: strings.Join(msg, " "), UpdatedAt: int64(i*10 + j)})
		}
	}
	var items []Item
	for i := range 30 {
		items = append(items, Item{Kind: KindCommand, Title: fmt.Sprintf("command %s %d", words[i%len(words)], i), Detail: "what it does"})
	}
	m := open(b, ps, ss, items, &went{})
	if n := len(m.idx.entries); n < 22000 {
		b.Fatalf("only %d entries", n)
	}
	m.View(120, 38)
	return m
}

// BenchmarkKeystroke is one key typed in the palette over 22,030 entries
// (2,000 projects of 10 sessions each): the search and the palette's
// redraw. "first" is the first key, which scans every entry (as does a
// key that does not extend the query, a backspace); "next" a key that
// extends the query, which narrows the last result; "broad" a first key
// that nearly every entry matches (the most rows to rank).
func BenchmarkKeystroke(b *testing.B) {
	for _, c := range []struct {
		name, before string
		key          rune
	}{
		{"first", "", 'l'},
		{"next", "logi", 'n'},
		{"broad", "", 'e'},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := benchPalette(b)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				m.input.SetValue("")
				m.search() // the matcher starts over, as at a backspace
				typeText(m, c.before)
				b.StartTimer()
				m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{c.key}})
				m.View(120, 38)
			}
		})
	}
}
