package common

import "github.com/charmbracelet/bubbles/key"

// GlobalKeys are the shell's keys, valid on every screen unless a text
// field has the focus (then only ctrl+ keys apply).
type GlobalKeys struct {
	Quit      key.Binding
	ForceQuit key.Binding
	Help      key.Binding
	// HelpTyping is Help as shown while a text field has the keys: ? is
	// typed there, f1 still opens help.
	HelpTyping key.Binding
	NextTab    key.Binding
	PrevTab    key.Binding
	Projects   key.Binding
	Session    key.Binding
	Settings   key.Binding
	// Palette opens the command palette where no text field has the
	// keys; PaletteTyping opens it while one does, since ctrl+k deletes
	// to the line end there (docs/adr/0057-command-palette.md).
	Palette       key.Binding
	PaletteTyping key.Binding
}

// NewGlobalKeys returns the shell's keymap.
func NewGlobalKeys() GlobalKeys {
	return GlobalKeys{
		Quit:       key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Help:       key.NewBinding(key.WithKeys("?", "f1"), key.WithHelp("?/f1", "help")),
		HelpTyping: key.NewBinding(key.WithKeys("f1"), key.WithHelp("f1", "help")),
		NextTab:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab:    key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		Projects:   key.NewBinding(key.WithKeys("1"), key.WithHelp("1/2/3", "Projects/Session/Settings")),
		Session:    key.NewBinding(key.WithKeys("2")),
		Settings:   key.NewBinding(key.WithKeys("3")),

		Palette:       key.NewBinding(key.WithKeys("ctrl+k", "ctrl+g"), key.WithHelp("ctrl+k", "command palette: go to a session, project, setting or command")),
		PaletteTyping: key.NewBinding(key.WithKeys("ctrl+g"), key.WithHelp("ctrl+g", "command palette (ctrl+k deletes to the line end here)")),
	}
}

// ConfirmKeys are used by yes/no dialogs.
type ConfirmKeys struct{ Yes, No key.Binding }

// NewConfirmKeys returns y/n bindings.
func NewConfirmKeys() ConfirmKeys {
	return ConfirmKeys{
		Yes: key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:  key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "no")),
	}
}
