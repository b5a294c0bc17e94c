package common

// DialogLayer is what most dialogs say to the shell: they float over the
// body, quitting loses nothing of theirs, and letters are commands, not
// text. A dialog embeds it and writes only the methods where it differs
// (a prompt captures text), so the Layer boilerplate lives once.
type DialogLayer struct{}

// FullScreen is false: a dialog floats over what is below it.
func (DialogLayer) FullScreen() bool { return false }

// Unsaved is "": a dialog holds nothing that quitting would lose.
func (DialogLayer) Unsaved() string { return "" }

// CapturesText is false: the dialog's keys are commands.
func (DialogLayer) CapturesText() bool { return false }

// PageLayer is DialogLayer for a page, which takes the whole body: it
// embeds it and writes the methods where it differs (an editor holds
// unsaved text and captures it).
type PageLayer struct{}

// FullScreen is true: a page hides the tabs below it.
func (PageLayer) FullScreen() bool { return true }

// Unsaved is "": a page that only shows things loses nothing.
func (PageLayer) Unsaved() string { return "" }

// CapturesText is false: the page's keys are commands.
func (PageLayer) CapturesText() bool { return false }
