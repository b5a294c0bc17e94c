// Package pathfield is a one-line path input whose tab completes names
// from the disk: folders in the add-project and relocate dialogs, files
// and folders inside a project on the Show-instructions page. Listing a
// folder is I/O, so it runs as a command; the field takes its answer as
// a message.
package pathfield

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Options say what a field completes.
type Options struct {
	// Home is what a leading ~ stands for, and how paths outside Root
	// are named.
	Home string
	// Root, when set, is the folder a relative path starts from, and
	// completion lists nothing outside it: a path leading outside (by
	// .., a link or an absolute path) gets a sentence saying so instead.
	// Without it a relative path starts from the working directory.
	Root string
	// Files completes file names too, not only folders.
	Files bool
}

// maxItems bounds the names one completion lists.
const maxItems = 200

// Field is the input and its last completions.
type Field struct {
	Input       textinput.Model
	opts        Options
	completions []string
	// id tells this field's completions from another's: every layer
	// gets every message.
	id *int
}

// New returns a focused, empty field.
func New(opts Options) Field {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = "~/src/project"
	in.CharLimit = 4096
	in.Focus()
	return Field{Input: in, opts: opts, id: new(int)}
}

// Msg carries a completion to the field that asked for it.
type Msg struct {
	id      *int
	typed   string
	items   []string
	problem string
}

// Complete lists, off the UI goroutine (a folder may be large or on a
// slow disk), the names that could follow what is typed.
func (f *Field) Complete() tea.Cmd {
	typed, opts, id := f.Input.Value(), f.opts, f.id
	return func() tea.Msg {
		items, problem := List(typed, opts)
		return Msg{id: id, typed: typed, items: items, problem: problem}
	}
}

// Apply takes a completion meant for this field; ok is false for one
// that is not (another field's). It returns a sentence when nothing
// matched or the path leads outside the root. A completion for text
// typed over since is dropped.
func (f *Field) Apply(msg Msg) (problem string, ok bool) {
	if msg.id != f.id {
		return "", false
	}
	if msg.typed != f.Input.Value() {
		return "", true
	}
	f.completions = nil
	if msg.problem != "" {
		return msg.problem, true
	}
	items := msg.items
	switch len(items) {
	case 0:
		if f.opts.Files {
			return "No file or folder matches.", true
		}
		return "No folder matches.", true
	case 1:
		f.Input.SetValue(items[0])
		f.Input.CursorEnd()
	default:
		common := items[0]
		for _, it := range items[1:] {
			for !strings.HasPrefix(it, common) {
				common = common[:len(common)-1]
			}
		}
		if len(common) > len(f.Input.Value()) {
			f.Input.SetValue(common)
			f.Input.CursorEnd()
		}
		f.completions = items
	}
	return "", true
}

// Update types into the field; what was completed is forgotten.
func (f *Field) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	f.Input, cmd = f.Input.Update(msg)
	f.completions = nil
	return cmd
}

// Forget drops the completions shown.
func (f *Field) Forget() { f.completions = nil }

// Lines shows up to five completions under the field, indented by
// indent cells to line up with it.
func (f *Field) Lines(st *common.UI, indent int) []string {
	var lines []string
	shown := f.completions
	more := ""
	if len(shown) > 5 {
		shown, more = shown[:5], st.Dim.Render(strings.Repeat(" ", max(indent-7, 0))+"… and more; type more letters")
	}
	pad := strings.Repeat(" ", indent)
	for _, c := range shown {
		name := filepath.Base(strings.TrimSuffix(c, "/"))
		if strings.HasSuffix(c, "/") {
			name += "/"
		}
		lines = append(lines, st.Dim.Render(pad+common.VisibleLine(name)))
	}
	if more != "" {
		lines = append(lines, more)
	}
	return lines
}

// List returns the names that complete typed, as typed (keeping a
// leading ~), folders ending in "/"; at most maxItems, sorted. problem is
// a sentence when it lists nothing because the folder is outside
// opts.Root.
func List(typed string, opts Options) (items []string, problem string) {
	if typed == "~" && opts.Home != "" {
		return []string{"~/"}, ""
	}
	// The typed text is split before ~ is expanded: expanding cleans the
	// path, which would drop a trailing slash and take the last folder
	// for a prefix.
	i := strings.LastIndex(typed, "/")
	typedDir, prefix := typed[:i+1], typed[i+1:]
	dir := "."
	if typedDir != "" {
		dir = paths.ExpandHome(typedDir, opts.Home)
	}
	if opts.Root != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(opts.Root, dir)
	}
	if opts.Root != "" {
		if outside, where := leaves(dir, opts.Root); outside {
			return nil, fmt.Sprintf("tab completes names inside the project only: %s is outside %s.",
				paths.Tilde(where, opts.Home), paths.Tilde(opts.Root, opts.Home))
		}
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, ""
	}
	defer f.Close()
	entries, _ := f.ReadDir(10000)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".")) {
			continue
		}
		isDir := e.IsDir()
		if !isDir && e.Type()&os.ModeSymlink != 0 {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.IsDir() {
				isDir = true
			}
		}
		switch {
		case isDir:
			items = append(items, typedDir+name+"/")
		case opts.Files:
			items = append(items, typedDir+name)
		}
		if len(items) == maxItems {
			break
		}
	}
	sort.Strings(items)
	return items, ""
}

// leaves reports whether dir, links followed, is outside root, and names
// where it is then. A folder that does not exist lists nothing anyway.
func leaves(dir, root string) (bool, string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false, ""
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		rootReal = filepath.Clean(root)
	}
	if real == rootReal || strings.HasPrefix(real, rootReal+string(filepath.Separator)) {
		return false, ""
	}
	return true, real
}
