package common

import tea "github.com/charmbracelet/bubbletea"

// SplitRunes returns the keys a key message stands for. Bubble Tea hands
// over the characters of one read as one message: "jj" typed over a slow
// SSH link, or text pasted into a terminal without bracketed paste,
// arrives as a single key of several runes, which no single-letter
// binding matches. Where keys are commands such a message is split, one
// key per character, and each is handled in turn; a text field takes it
// whole. A bracketed paste, or a key of one rune, is returned as it is.
func SplitRunes(msg tea.KeyMsg) []tea.KeyMsg {
	if msg.Type != tea.KeyRunes || msg.Paste || len(msg.Runes) < 2 {
		return []tea.KeyMsg{msg}
	}
	out := make([]tea.KeyMsg, len(msg.Runes))
	for i, r := range msg.Runes {
		out[i] = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt && i == 0}
	}
	return out
}
