package dialog

import "github.com/pi-tui/pi-tui/ui/common"

// Wrap is common.Wrap, for a dialog's sentences: at spaces, a long path
// after a '/', with list items' hanging indent.
func Wrap(text string, width int) string { return common.Wrap(text, width) }

// WrapExact is common.WrapExact, for text a dialog must show exactly (a
// command to approve, a diff line).
func WrapExact(text string, width int) []string { return common.WrapExact(text, width) }
