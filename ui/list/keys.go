package list

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// KeyMap is a list's moving keys. A list under a text field leaves out
// what typing takes (letters, home and end); a binding without keys is
// off.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

// DefaultKeyMap is the moving keys of a list that has the keyboard to
// itself: arrows and vi's k/j, pgup/pgdn, home/g and end/G.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "first")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "last")),
	}
}

// TypingKeyMap is the moving keys of a list under a text field (a filter,
// a name being typed): the arrows and the page keys, which type nothing.
func TypingKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "up")),
		Down:     key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
	}
}

// Matches reports whether msg is one of the moving keys.
func (k KeyMap) Matches(msg tea.KeyMsg) bool {
	return key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom)
}

// Bindings lists the keys that are on, in help order.
func (k KeyMap) Bindings() []key.Binding {
	var out []key.Binding
	for _, b := range []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom} {
		if len(b.Keys()) > 0 {
			out = append(out, b)
		}
	}
	return out
}
