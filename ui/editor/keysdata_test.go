package editor

import (
	"testing"

	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// The AGENTS.md editor's help is its key table: the page's keys and the
// editing keys that work there (ctrl+e is $EDITOR, so the buffer's end is
// end alone).
func TestPageKeysAreData(t *testing.T) {
	p := newTestPage(t, t.TempDir(), Config{})
	p.winner = "CLAUDE.md" // ctrl+o shows only when another file wins
	b := p.buf.KeyMap()
	table := struct {
		Page                                                                     PageKeys
		Home, Top, WordLeft, PageUp, DeleteWord, KillLine, KillStart, Undo, Redo any
	}{p.keys, b.Home, b.Top, b.WordLeft, b.PageUp, b.DeleteWord, b.KillLine, b.KillStart, b.Undo, b.Redo}
	keytest.Check(t, "AGENTS.md editor", table, p.Help())
	for _, k := range b.End.Keys() {
		if k == "ctrl+e" {
			t.Error("the buffer still takes ctrl+e, which is $EDITOR here")
		}
	}
}
