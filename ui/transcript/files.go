package transcript

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/common"
)

// The review card under a tool call that changed files (issue 23): each
// file with its status and +N −M, marked when it cannot be undone or was
// undone; ctrl+o, expanding the call, shows the diffs too.

// maxCardFiles is how many files a card lists before "and N more".
const maxCardFiles = 8

// fileRow is one file a call changed, with its state (active, undone).
type fileRow struct {
	events.FileChange
	state string
}

// callFiles is what the card of one call shows.
type callFiles struct {
	rows []fileRow
	note string
	diff string // the call's diffs, loaded when it is expanded ("" not yet)
}

// files is the card data of every call, by call id: set from ToolEnded
// events and from the session's changes as the review service lists
// them, kept over rereads.
func (m *Model) filesOf(callID string) *callFiles {
	if m.files == nil {
		m.files = map[string]*callFiles{}
	}
	f := m.files[callID]
	if f == nil {
		f = &callFiles{}
		m.files[callID] = f
	}
	return f
}

// SetChanges gives the cards the session's changes (all of them: those a
// view of another branch does not show are kept for when it does).
func (m *Model) SetChanges(cs []checkpoints.Change) {
	byCall := map[string][]fileRow{}
	for _, c := range cs {
		if c.ToolCallID == "" {
			continue
		}
		byCall[c.ToolCallID] = append(byCall[c.ToolCallID], fileRow{FileChange: events.FileChange{N: c.N, Path: c.Path, Status: c.Status,
			Added: c.Added, Removed: c.Removed, Binary: c.Binary, Kept: c.Kept}, state: c.State})
	}
	for id, rows := range byCall {
		f := m.filesOf(id)
		f.rows, f.diff = rows, ""
	}
	m.touchFiles()
}

// endFiles records what a call's checkpoint said when it ended.
func (m *Model) endFiles(callID string, changes []events.FileChange, note string) {
	if callID == "" || (len(changes) == 0 && note == "") {
		return
	}
	f := m.filesOf(callID)
	f.rows, f.note, f.diff = nil, note, ""
	for _, c := range changes {
		f.rows = append(f.rows, fileRow{FileChange: c, state: checkpoints.StateActive})
	}
}

// SetDiff gives an expanded call its diffs.
func (m *Model) SetDiff(callID, diff string) {
	m.filesOf(callID).diff = diff
	m.touchFiles()
}

// touchFiles has every tool item drawn again.
func (m *Model) touchFiles() {
	for _, it := range m.items {
		if it.kind == kindTool {
			it.cacheKey = ""
		}
	}
}

// SelectedChanges is the changes of the call ctrl+o acts on, when it
// changed files and is expanded now (the chat then loads its diffs).
func (m *Model) SelectedChanges() (callID string, ns []int) {
	i := m.selected()
	if i < 0 {
		return "", nil
	}
	it := m.items[i]
	it.decode()
	f := m.files[it.callID]
	if !it.expanded || f == nil || len(f.rows) == 0 {
		return "", nil
	}
	for _, r := range f.rows {
		ns = append(ns, r.N)
	}
	return it.callID, ns
}

func statusLetter(s string) string {
	switch s {
	case checkpoints.StatusAdded:
		return "A"
	case checkpoints.StatusDeleted:
		return "D"
	}
	return "M"
}

// fileLines draws the card under a call's line.
func (it *item) fileLines(st *common.UI, width int, files map[string]*callFiles) string {
	f := files[it.callID]
	if f == nil || (len(f.rows) == 0 && f.note == "") {
		return ""
	}
	w := max(width-6, 10)
	var b strings.Builder
	for i, r := range f.rows {
		if i == maxCardFiles && len(f.rows) > maxCardFiles+1 {
			b.WriteString("\n" + st.Dim.Render(indent(indent(fmt.Sprintf("… and %d more files (/changes lists them)", len(f.rows)-i)))))
			break
		}
		count := fmt.Sprintf("+%d −%d", r.Added, r.Removed)
		if r.Binary {
			count = "binary"
		}
		var tags []string
		if !r.Kept {
			tags = append(tags, "not undoable")
		}
		if r.state == checkpoints.StateUndone {
			tags = append(tags, "undone")
		}
		tail := "  " + count
		if len(tags) > 0 {
			tail += " · " + strings.Join(tags, " · ")
		}
		path := ansi.TruncateLeft(common.VisibleLine(r.Path), max(ansi.StringWidth(common.VisibleLine(r.Path))-(w-4-ansi.StringWidth(tail)), 0), "…")
		line := statusLetter(r.Status) + " " + path + tail
		style := st.Dim
		if r.state != checkpoints.StateUndone {
			style = st.Normal
		}
		b.WriteString("\n" + style.Render(indent(indent(line))))
	}
	if f.note != "" {
		b.WriteString("\n" + st.Dim.Render(indent(indent(ansi.Wrap(common.VisibleLine("checkpoint: "+f.note), w, "")))))
	}
	if len(f.rows) > 0 {
		hint := "ctrl+o diff · /changes undoes"
		if it.expanded {
			hint = "ctrl+o closes the diff · /changes undoes"
		}
		b.WriteString("\n" + st.Dim.Render(indent(indent(hint))))
	}
	if it.expanded && len(f.rows) > 0 {
		if f.diff == "" {
			b.WriteString("\n" + st.Dim.Render(indent(indent("(loading the diff…)"))))
		} else {
			b.WriteString(diffLines(st, f.diff, w))
		}
	}
	return b.String()
}

// diffLines colours a unified diff: added lines, removed lines, headers.
// Its text came from files: controls are shown, never sent.
func diffLines(st *common.UI, diff string, w int) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		shown := ansi.Truncate(common.VisibleLine(strings.ReplaceAll(l, "\t", "    ")), w, "…")
		style := st.Dim
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "):
			style = st.Title
		case strings.HasPrefix(l, "+"):
			style = st.OK
		case strings.HasPrefix(l, "-"):
			style = st.Error
		}
		b.WriteString("\n" + style.Render(indent(indent(shown))))
	}
	return b.String()
}
