package palette

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/registry"
)

// A project is found by any of its folders (ADR 0085): a folder's path
// or name finds it as its root does, and its row says it has more.
func TestFindsAProjectByAnyOfItsFolders(t *testing.T) {
	shop := registry.Project{ID: "p1", Name: "shop", Root: "/home/u/src/api", Folders: []registry.Folder{
		{Name: "api", Path: "/home/u/src/api", Primary: true},
		{Name: "storefront", Path: "/home/u/checkouts/web-ui"},
	}}
	other := registry.Project{ID: "p2", Name: "other", Root: "/home/u/src/other", Folders: []registry.Folder{{Name: "other", Path: "/home/u/src/other", Primary: true}}}
	for _, q := range []string{"web-ui", "storefront", "checkouts"} {
		w := &went{}
		m := open(t, []registry.Project{shop, other}, nil, nil, w)
		typeText(m, q)
		got := shown(m)
		if !slices.Contains(got, "project shop") || slices.Contains(got, "project other") {
			t.Errorf("%q shows %q, want the project shop alone", q, got)
		}
		m.Update(tea.KeyMsg{Type: tea.KeyEnter})
		if w.to != "project shop" {
			t.Errorf("%q: enter went to %q", q, w.to)
		}
	}
	m := open(t, []registry.Project{shop, other}, nil, nil, &went{})
	if v := m.View(100, 30); !strings.Contains(v, "+1 folder") {
		t.Errorf("the row does not say the project has another folder:\n%s", v)
	}
}
