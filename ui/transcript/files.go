package transcript

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/diffview"
)

// The review card under a tool call that changed files (issue 23): each
// file with its status and +N −M, marked when it cannot be undone, was
// undone, or belongs to the session this one was forked from; the
// checkpoint's note when it could not see or keep something; and what
// shows the diffs: ctrl+o on the call ctrl+o acts on (the selected one,
// else the latest), which expands it with its diffs under its output.
// The card is drawn under the call's line, the diffs under its output.

const (
	// maxCardFiles is how many files a card lists before "and N more".
	maxCardFiles = 8
	// maxDiffLines bounds the diff lines an expanded call shows in the
	// transcript; the Review screen shows each change's whole diff.
	maxDiffLines = 400
)

// fileRow is one file a call changed, with its state (active, undone,
// parent) and the session it was made in ("" for the open one: a live
// call's).
type fileRow struct {
	events.FileChange
	state   string
	session string
}

// callFiles is what the card of one call shows.
type callFiles struct {
	rows []fileRow
	note string
	// diff is the rows' diffs once loaded (loaded), for an expanded call;
	// asked says a load is under way.
	diff          string
	loaded, asked bool
}

// CardHints are the keys and the command a card names, from the chat's
// key table: Diff expands the call ctrl+o acts on, Select moves that
// selection, Review is the command of the Review screen.
type CardHints struct{ Diff, Select, Review string }

// SetCardHints sets what the cards say to press.
func (m *Model) SetCardHints(h CardHints) {
	m.hints = h
	m.touchFiles()
}

// filesOf is the card data of call callID, made when missing. The data
// of every call is kept by call id over rereads of the branch (it comes
// from events and from the review service, not from the entries).
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

// SetChanges gives the cards the session's changes as the review service
// lists them (all of them: those a view of another branch does not show
// are kept for when it does). A call's diffs stay when its changes are
// the same ones (a change's diff never changes, its state does).
func (m *Model) SetChanges(cs []checkpoints.Change) {
	byCall := map[string][]fileRow{}
	for _, c := range cs {
		if c.ToolCallID == "" {
			continue
		}
		byCall[c.ToolCallID] = append(byCall[c.ToolCallID], fileRow{FileChange: events.FileChange{N: c.N, Path: c.Path, Status: c.Status,
			Added: c.Added, Removed: c.Removed, Binary: c.Binary, Kept: c.Kept}, state: c.State, session: c.Session})
	}
	for id, rows := range byCall {
		f := m.filesOf(id)
		if !sameChanges(f.rows, rows) {
			f.diff, f.loaded, f.asked = "", false, false
		}
		f.rows = rows
	}
	m.touchFiles()
}

// sameChanges reports whether two cards list the same changes.
func sameChanges(a, b []fileRow) bool {
	return slices.EqualFunc(a, b, func(x, y fileRow) bool {
		return x.N == y.N && (x.session == y.session || x.session == "" || y.session == "")
	})
}

// endFiles records what a call's checkpoint said when it ended.
func (m *Model) endFiles(callID string, changes []events.FileChange, note string) {
	if callID == "" || (len(changes) == 0 && note == "") {
		return
	}
	f := m.filesOf(callID)
	f.rows, f.note, f.diff, f.loaded, f.asked = nil, note, "", false, false
	for _, c := range changes {
		f.rows = append(f.rows, fileRow{FileChange: c, state: checkpoints.StateActive})
	}
}

// DiffRequest asks for the diffs of one expanded call's changes; a
// change's Session is "" when it is the open session's own.
type DiffRequest struct {
	CallID  string
	Changes []checkpoints.Change
}

// DiffsWanted lists the expanded calls whose diffs are neither shown nor
// asked for yet, and marks them asked: the chat loads them and hands
// them back with SetDiff.
func (m *Model) DiffsWanted() []DiffRequest {
	var out []DiffRequest
	for _, it := range m.items {
		if it.kind != kindTool || !it.expanded {
			continue
		}
		f := m.files[it.callID]
		if f == nil || len(f.rows) == 0 || f.loaded || f.asked {
			continue
		}
		f.asked = true
		r := DiffRequest{CallID: it.callID}
		for _, row := range f.rows {
			r.Changes = append(r.Changes, checkpoints.Change{N: row.N, Session: row.session, Path: row.Path, ToolCallID: it.callID})
		}
		out = append(out, r)
	}
	return out
}

// SetDiff gives an expanded call its diffs.
func (m *Model) SetDiff(callID, diff string) {
	f := m.filesOf(callID)
	f.diff, f.loaded, f.asked = diff, true, false
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

// CountText is a change's size as cards and the Review screen say it:
// "+N −M", or "binary".
func CountText(added, removed int, binary bool) string {
	if binary {
		return "binary"
	}
	return fmt.Sprintf("+%d −%d", added, removed)
}

// ShortPath fits a path to w cells by dropping its start, so the file's
// name, which tells most, stays: "…/deep/name.go" (the cut made at a
// folder's boundary when the rest still holds one). Its controls are
// shown, never sent.
func ShortPath(path string, w int) string {
	p := common.VisibleLine(path)
	over := ansi.StringWidth(p) - max(w, 1)
	if over <= 0 {
		return p
	}
	cut := ansi.TruncateLeft(p, over+1, "")
	// Cut at a folder's boundary when one is left: "…/deep/name.go".
	if i := strings.IndexByte(cut, '/'); i >= 0 && i < len(cut)-1 {
		cut = cut[i:]
	}
	return "…" + cut
}

// fileLines draws the card under a call's line. target says the call is
// the one ctrl+o acts on now.
func (it *item) fileLines(st *common.UI, width int, opts viewOpts) string {
	f := opts.files[it.callID]
	if f == nil || (len(f.rows) == 0 && f.note == "") {
		return ""
	}
	w := max(width-6, 10)
	var b strings.Builder
	for i, r := range f.rows {
		if i == maxCardFiles && len(f.rows) > maxCardFiles+1 {
			b.WriteString("\n" + st.Dim.Render(indent(indent(fmt.Sprintf("… and %d more files (%s lists them)", len(f.rows)-i, opts.hints.Review)))))
			break
		}
		var tags []string
		switch r.state {
		case checkpoints.StateUndone:
			tags = append(tags, "undone")
		case checkpoints.StateParent:
			tags = append(tags, "the parent session's")
		}
		if !r.Kept {
			tags = append(tags, "not undoable")
		}
		tail := "  " + CountText(r.Added, r.Removed, r.Binary)
		if len(tags) > 0 {
			tail += " · " + strings.Join(tags, " · ")
		}
		line := checkpoints.Letter(r.Status) + " " + ShortPath(r.Path, w-2-ansi.StringWidth(tail)) + tail
		style := st.Normal
		if r.state != checkpoints.StateActive {
			style = st.Dim
		}
		b.WriteString("\n" + style.Render(indent(indent(line))))
	}
	if f.note != "" {
		b.WriteString("\n" + st.Dim.Render(indent(indent(common.Wrap(common.VisibleLine("checkpoint: "+f.note), w)))))
	}
	if len(f.rows) == 0 {
		return b.String()
	}
	h := opts.hints
	hint := h.Select + " selects · " + h.Diff + " diff"
	switch {
	case it == opts.target && it.expanded:
		hint = h.Diff + " closes the diff · " + h.Review + " undoes"
	case it == opts.target:
		hint = h.Diff + " diff · " + h.Review + " undoes"
	}
	b.WriteString("\n" + st.Dim.Render(indent(indent(hint))))
	return b.String()
}

// expandedDiff draws an expanded call's diffs, under its output.
func (it *item) expandedDiff(st *common.UI, width int, opts viewOpts) string {
	f := opts.files[it.callID]
	if !it.expanded || f == nil || len(f.rows) == 0 {
		return ""
	}
	if !f.loaded {
		return "\n" + st.Dim.Render(indent(indent("(loading the diff…)")))
	}
	return diffLines(st, f.diff, width-4, opts.hints.Review)
}

// diffLines draws an expanded call's diffs as every diff is drawn
// (ui/diffview), under the card, at most maxDiffLines of them.
func diffLines(st *common.UI, diff string, w int, review string) string {
	lines := diffview.Lines(st, diff)
	if len(lines) == 0 {
		return "\n" + st.Dim.Render(indent(indent("(no diff to show)")))
	}
	var b strings.Builder
	for i, l := range lines {
		if i == maxDiffLines {
			b.WriteString("\n" + st.Dim.Render(indent(indent(fmt.Sprintf("… %d more lines: %s, enter on a change, shows its whole diff", len(lines)-i, review)))))
			break
		}
		b.WriteString("\n  " + ansi.Truncate(l, max(w, 10), "…"))
	}
	return b.String()
}
