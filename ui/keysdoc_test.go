package ui

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// The key table in docs/keys.md is generated from the screens' key tables: each
// screen's help (which keytest holds to the table that handles the keys)
// gives the keys, named as the help screen names them, and readmeKeyDocs
// says in prose what they do. A key a table gains shows up as a row of
// its own (its help text) until the prose takes it in; a key a table
// loses, or a row edited in docs/keys.md by hand, fails the test, naming
// the key. `go test ./ui -run TestREADMEKeys -update` writes the table.

// keyScreen is one screen's part of the table.
type keyScreen struct {
	where string
	help  [][]key.Binding // what the screen's help shows
	rows  []keyRow
}

// keyRow is one row of prose: the keys it documents, as help names them
// ("↑/k"), and what they do. A command row names something typed (/tree),
// which no key table holds.
type keyRow struct {
	keys    []string
	does    string
	command bool
}

// tableRow is one row of docs/keys.md's table.
type tableRow struct{ where, keys, does string }

func (r tableRow) String() string {
	where := "| " + r.where + " |"
	if r.where == "" {
		where = "| |"
	}
	return where + " " + r.keys + " | " + r.does + " |"
}

// keyTable lays the screens out as docs/keys.md's rows. errs names the
// keys the prose documents that no screen's help shows.
func keyTable(screens []keyScreen) (rows []tableRow, errs []string) {
	for _, s := range screens {
		var shown []key.Binding
		for _, col := range s.help {
			for _, b := range col {
				if b.Enabled() && b.Help().Key != "" {
					shown = append(shown, b)
				}
			}
		}
		claimed := make([]bool, len(shown))
		// claim takes the first binding help shows as k that no row has
		// taken yet (a chat has two esc: abort, then close the menu).
		claim := func(k string) bool {
			for i, b := range shown {
				if !claimed[i] && b.Help().Key == k {
					claimed[i] = true
					return true
				}
			}
			return false
		}
		var out []tableRow
		for _, r := range s.rows {
			if strings.Contains(r.does, "|") {
				errs = append(errs, fmt.Sprintf("the key table's prose for %s %v holds a |, which would split its cell", s.where, r.keys))
			}
			for _, k := range r.keys {
				if !r.command && !claim(k) {
					errs = append(errs, fmt.Sprintf("the key table's prose for %s documents %q, which its help does not show (or shows fewer times): update readmeKeyDocs", s.where, k))
				}
			}
			out = append(out, tableRow{keys: keyCell(r.keys), does: r.does})
		}
		for i, b := range shown {
			if !claimed[i] {
				out = append(out, tableRow{keys: keyCell([]string{b.Help().Key}), does: b.Help().Desc})
			}
		}
		for i := range out {
			if i == 0 {
				out[i].where = s.where
			}
		}
		rows = append(rows, out...)
	}
	return rows, errs
}

func keyCell(keys []string) string {
	cells := make([]string, len(keys))
	for i, k := range keys {
		cells[i] = "`" + k + "`"
	}
	return strings.Join(cells, ", ")
}

// The key table lives in keysFile (the manual's page of keys, which the
// README links to); it starts after keysBegin's line and ends before
// keysEnd's.
const (
	keysFile  = "../docs/keys.md"
	keysBegin = "<!-- keys: generated from the key tables by `go test ./ui -run TestREADMEKeys -update`; the prose is in ui/keysdoc_screens_test.go -->"
	keysEnd   = "<!-- /keys -->"
)

func renderKeyTable(rows []tableRow) string {
	lines := []string{"| where | key | does |", "| --- | --- | --- |"}
	for _, r := range rows {
		lines = append(lines, r.String())
	}
	return strings.Join(lines, "\n") + "\n"
}

// splitREADME returns docs/keys.md's text before the table, the table's
// rows, and the text after it.
func splitREADME(text string) (before string, rows []tableRow, after string, err error) {
	i := strings.Index(text, keysBegin+"\n")
	j := strings.Index(text, "\n"+keysEnd)
	if i < 0 || j < i {
		return "", nil, "", fmt.Errorf(keysFile+" has no key table between %q and %q", keysBegin, keysEnd)
	}
	before, table, after := text[:i+len(keysBegin)+1], text[i+len(keysBegin)+1:j+1], text[j+1:]
	where := ""
	for n, l := range strings.Split(strings.TrimSuffix(table, "\n"), "\n") {
		if n < 2 {
			continue // the header and its rule
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) != 3 {
			return "", nil, "", fmt.Errorf(keysFile+"'s key table has a row without three cells: %s", l)
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[0] != "" {
			where = cells[0]
		}
		rows = append(rows, tableRow{where: where, keys: cells[1], does: cells[2]})
	}
	return before, rows, after, nil
}

// keyDrift compares docs/keys.md's rows with the generated ones and names
// each key whose row differs.
func keyDrift(readme, want []tableRow) []string {
	id := func(r tableRow) string { return r.where + " " + r.keys }
	have := map[string]tableRow{}
	for _, r := range readme {
		have[id(r)] = r
	}
	wanted := map[string]bool{}
	var out []string
	where := ""
	for _, r := range want {
		if r.where != "" {
			where = r.where
		}
		r.where = where
		wanted[id(r)] = true
		got, ok := have[id(r)]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("docs/keys.md's key table lacks %s (%s): %s", r.keys, r.where, r.does))
		case got.does != r.does:
			out = append(out, fmt.Sprintf("docs/keys.md's key table says %s (%s) does %q; the key tables say %q", r.keys, r.where, got.does, r.does))
		}
	}
	for _, r := range readme {
		if !wanted[id(r)] {
			out = append(out, fmt.Sprintf("docs/keys.md's key table has %s (%s), which no key table shows there", r.keys, r.where))
		}
	}
	if len(out) == 0 && len(readme) != len(want) {
		out = append(out, "docs/keys.md's key table repeats a row")
	}
	if len(out) == 0 {
		for i := range want {
			if want[i].keys != readme[i].keys {
				out = append(out, fmt.Sprintf("docs/keys.md's key table has its rows in another order from %s on", readme[i].keys))
				break
			}
		}
	}
	return out
}

// docs/keys.md's key table is the key tables' (see readmeKeyDocs).
func TestREADMEKeys(t *testing.T) {
	t.Parallel()
	rows, errs := keyTable(readmeKeyDocs(t))
	for _, e := range errs {
		t.Error(e)
	}
	data, err := os.ReadFile(keysFile)
	if err != nil {
		t.Fatal(err)
	}
	before, have, after, err := splitREADME(string(data))
	if err != nil {
		t.Fatal(err)
	}
	// Generated rows carry their screen only on its first row, as the
	// docs/keys.md does.
	var full []tableRow
	where := ""
	for _, r := range rows {
		if r.where != "" {
			where = r.where
		}
		full = append(full, tableRow{where: where, keys: r.keys, does: r.does})
	}
	if updating() {
		if len(errs) == 0 {
			if err := os.WriteFile(keysFile, []byte(before+renderKeyTable(rows)+after), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, d := range keyDrift(have, full) {
		t.Error(d + " (go test ./ui -run TestREADMEKeys -update writes the table)")
	}
}

// The drift check names the key in either direction: a key a table
// shows that docs/keys.md lacks, a row it has that no table shows,
// and a row whose words differ.
func TestKeyDriftNamesTheKey(t *testing.T) {
	t.Parallel()
	want := []tableRow{{"Projects", "`s`", "sort"}, {"Projects", "`z`", "fold"}}
	for _, c := range []struct {
		readme []tableRow
		names  string
	}{
		{[]tableRow{{"Projects", "`s`", "sort"}}, "lacks `z` (Projects)"},
		{[]tableRow{{"Projects", "`s`", "sort"}, {"Projects", "`z`", "fold"}, {"Projects", "`q`", "quit"}}, "has `q` (Projects)"},
		{[]tableRow{{"Projects", "`s`", "order"}, {"Projects", "`z`", "fold"}}, "says `s` (Projects) does"},
		{[]tableRow{{"Projects", "`z`", "fold"}, {"Projects", "`s`", "sort"}}, "another order from `z`"},
	} {
		got := strings.Join(keyDrift(c.readme, want), "\n")
		if !strings.Contains(got, c.names) {
			t.Errorf("drift %v: %q, want it to say %q", c.readme, got, c.names)
		}
	}
	if got := keyDrift(want, want); len(got) > 0 {
		t.Errorf("no drift, yet %v", got)
	}
	// Prose for a key no help shows any more fails, naming it; a key help
	// shows without prose becomes a row of its own.
	help := [][]key.Binding{{key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")), key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "fold group"))}}
	rows, errs := keyTable([]keyScreen{{where: "Projects", help: help, rows: []keyRow{{keys: []string{"s", "x"}, does: "sort, archive"}}}})
	if len(errs) != 1 || !strings.Contains(errs[0], `"x"`) {
		t.Errorf("prose for an unbound key: %v", errs)
	}
	if len(rows) != 2 || rows[1] != (tableRow{keys: "`z`", does: "fold group"}) {
		t.Errorf("a key without prose: %v", rows)
	}
}
