package chat

import (
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"

	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// typedAway reports the keys of help that typing would take: a plain
// character (not a control or alt key) goes into the text.
func typedAway(help [][]key.Binding) []string {
	var out []string
	for _, col := range help {
		for _, b := range col {
			for _, k := range b.Keys() {
				if utf8.RuneCountInString(k) == 1 && k != "/" && k != "@" {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// The chat shows the keys its table handles, and only those, and lists
// only keys that work while typing.
func TestChatKeysAreData(t *testing.T) {
	m := testModel(t)
	k := m.keys
	e := m.in.input.KeyMap()
	chat := struct {
		Send, Newline, Expand, Abort, HistPrev, HistNext, ScrollUp, ScrollDown, Tools, ToolPrev, ToolNext, Thinking, Level, Sessions key.Binding
		Commands                                                                                                                     key.Binding
		Menu                                                                                                                         any
		Home, WordLeft, DeleteWord, KillLine, KillStart, Undo, Redo                                                                  key.Binding
	}{k.Send, k.Newline, k.Expand, k.Abort, k.HistPrev, k.HistNext, k.ScrollUp, k.ScrollDown, k.Tools, k.ToolPrev, k.ToolNext, k.Thinking, k.Level, k.Sessions,
		menuKeys.Commands, menuKeys, e.Home, e.WordLeft, e.DeleteWord, e.KillLine, e.KillStart, e.Undo, e.Redo}
	keytest.Check(t, "chat", chat, m.Help())
	if typed := typedAway(m.Help()); len(typed) > 0 {
		t.Errorf("the chat's help shows keys that typing takes: %v", typed)
	}
}
