package transcript

import (
	"encoding/json"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
)

// The agent's memory changes in the transcript (ADR 0022): a remember
// call's line is followed by what it changed and whether it was undone
// (the chat's /undo-memory undoes the latest).

// linkChanges gives stored remember results their change records, and
// marks those the user undid, so a reopened session shows its changes and
// can undo them.
func linkChanges(es []sessions.Entry, items []*item) {
	var changes map[string]entries.MemoryChangeRecord
	undone := map[string]bool{}
	for i := range es {
		if es[i].Type != sessions.TypeCustom || !strings.Contains(string(es[i].Payload()), entries.CustomMemoryChange) {
			continue
		}
		var r entries.MemoryChangeRecord
		if json.Unmarshal(es[i].Payload(), &r) != nil {
			continue
		}
		switch r.Kind {
		case entries.CustomMemoryChange:
			if changes == nil {
				changes = map[string]entries.MemoryChangeRecord{}
			}
			changes[r.ToolResultID] = r
		case entries.CustomMemoryUndone:
			undone[r.ToolCallID] = true
		}
	}
	for _, it := range items {
		if it.kind != kindTool || it.entry == nil {
			continue
		}
		if r, ok := changes[it.entry.ID]; ok {
			it.change, it.callID, it.undone = &r.Change, r.ToolCallID, undone[r.ToolCallID]
		}
	}
}

// changeLines draws a change under its tool line: what it did, the text
// it wrote or took away (a few lines, controls shown), and how to undo it.
func (it *item) changeLines(st *common.UI, width int) string {
	c := it.change
	if c == nil {
		return ""
	}
	w := max(width-6, 10)
	var b strings.Builder
	line := "memory: " + c.Summary()
	if it.undone {
		line += " · undone"
	} else {
		line += " · /undo-memory undoes it"
	}
	b.WriteString("\n" + st.Dim.Render(indent(indent(common.Wrap(common.VisibleLine(line), w)))))
	text := func(sign string, e *memory.Entry) {
		if e == nil {
			return
		}
		lines := strings.Split(e.Content, "\n")
		if e.Title != "" {
			lines = append([]string{"## " + e.Title}, lines...)
		}
		for i, l := range lines {
			if i == 3 {
				b.WriteString("\n" + st.Dim.Render(indent(indent(sign+" …"))))
				break
			}
			b.WriteString("\n" + st.Dim.Render(indent(indent(sign+" "+ansi.Truncate(common.VisibleLine(l), w-2, "…")))))
		}
	}
	if c.Action != memory.ActionAdd {
		text("-", c.Before)
	}
	if c.Action != memory.ActionRemove {
		text("+", c.After)
	}
	return b.String()
}
