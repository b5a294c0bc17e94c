package settings

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/services"
	"github.com/pi-tui/pi-tui/ui/common"
)

func paletteModel(t *testing.T) (*Model, state) {
	home := t.TempDir()
	h := &host.Host{Services: &services.Services{Places: paths.Places{Home: home, AgentDir: home + "/.pi/agent", DataDir: home + "/data"}}}
	m := New(h, h.Runtimes, common.NewUI(common.NewStyles(lipgloss.NewRenderer(io.Discard))), nil, nil)
	var s state
	s.guidance, _ = instructions.LoadGuidance(h.Places.AgentDir)
	return m, s
}

// The names the command palette offers are the ones the rows show, in
// the rows' order.
func TestPaletteNamesAreTheRows(t *testing.T) {
	m, s := paletteModel(t)
	m.state = s
	i := 0
	for _, l := range m.layout() {
		if l.item >= itemCount || l.rule >= 0 {
			continue
		}
		if int(l.item) != i {
			t.Fatalf("setting %d is row %d", l.item, i)
		}
		if row := l.draw(300, false); !strings.HasPrefix(strings.TrimSpace(row), Names()[i]+" ") {
			t.Errorf("row %q does not start with the palette's name %q", row, Names()[i])
		}
		i++
	}
	if i != len(Names()) {
		t.Errorf("%d setting rows, %d names", i, len(Names()))
	}
}

// Focus puts the cursor on a setting, before the tab has loaded as well
// as after.
func TestFocusPutsTheCursorOnTheSetting(t *testing.T) {
	m, s := paletteModel(t)
	m.SetSize(80, 22)
	m.Focus(int(itemPermission))
	m.Update(loadedMsg{s: s})
	if got := m.selectedItem(); got != itemPermission {
		t.Fatalf("before the load: the cursor is on %d", got)
	}
	m.Focus(int(itemTTL))
	if got := m.selectedItem(); got != itemTTL {
		t.Fatalf("after the load: the cursor is on %d", got)
	}
	m.Update(loadedMsg{s: s})
	if got := m.selectedItem(); got != itemTTL {
		t.Fatalf("after a reload: the cursor is on %d", got)
	}
}
