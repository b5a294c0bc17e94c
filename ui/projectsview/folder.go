package projectsview

import (
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/ui/common"
)

// folderField is a path input whose tab completes folder names, shared
// by the add and relocate dialogs.
type folderField struct {
	input       textinput.Model
	home        string
	completions []string
}

func newFolderField(home string) folderField {
	p := textinput.New()
	p.Prompt = ""
	p.Placeholder = "~/src/project"
	p.CharLimit = 4096
	p.Focus()
	return folderField{input: p, home: home}
}

type completionMsg struct {
	for_  string
	items []string
}

// complete lists the folders that could follow what is typed, off the UI
// goroutine (a directory may be large or on a slow disk).
func (f *folderField) complete() tea.Cmd {
	typed, home := f.input.Value(), f.home
	return func() tea.Msg {
		return completionMsg{for_: typed, items: completeDirs(typed, home)}
	}
}

// apply takes a completion; it returns a sentence when nothing matched.
// A completion for text typed over since is dropped.
func (f *folderField) apply(msg completionMsg) (errText string) {
	if msg.for_ != f.input.Value() {
		return ""
	}
	items := msg.items
	switch len(items) {
	case 0:
		f.completions = nil
		return "No folder matches."
	case 1:
		f.input.SetValue(items[0])
		f.input.CursorEnd()
		f.completions = nil
	default:
		common := items[0]
		for _, it := range items[1:] {
			for !strings.HasPrefix(it, common) {
				common = common[:len(common)-1]
			}
		}
		if len(common) > len(f.input.Value()) {
			f.input.SetValue(common)
			f.input.CursorEnd()
		}
		f.completions = items
	}
	return ""
}

// update types into the field; what was completed is forgotten.
func (f *folderField) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(msg)
	f.completions = nil
	return cmd
}

// completionLines shows up to five completions under the field.
func (f *folderField) completionLines(st *common.UI) []string {
	var lines []string
	shown := f.completions
	more := ""
	if len(shown) > 5 {
		shown, more = shown[:5], st.Dim.Render("  … and more; type more letters")
	}
	for _, c := range shown {
		lines = append(lines, st.Dim.Render("         "+filepath.Base(strings.TrimSuffix(c, "/"))+"/"))
	}
	if more != "" {
		lines = append(lines, more)
	}
	return lines
}
