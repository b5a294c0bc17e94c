package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// window returns the model-visible window of pi's current branch (read
// from its session file, which pi writes as it goes) with the records
// handed to pi but not yet in the file after it, and the id of the turn's
// assistant entry. The branch ends at leafID when pi named it and the file
// has it, else at the newest entry (pi appends to its leaf). Called with
// dmu held.
func (d *Decisions) window(ctx context.Context, leafID string) ([]sessions.Entry, string) {
	path, err := d.branch(ctx, leafID)
	if err != nil {
		path = nil // no file yet, or unreadable: a fresh branch
	}
	inFile := map[string]bool{}
	out := make([]sessions.Entry, 0, len(path)+len(d.pending))
	extras := map[string]json.RawMessage{} // tool result id → pi-tui preflight
	for _, pe := range path {
		if pe.Type == pisession.TypeCustom {
			if ct, _ := pe.StringMember("customType"); ct == "pi-tui.tool" {
				data := pe.Member("data")
				if id, ok := pisession.StringMemberOf(data, "toolResultId"); ok {
					var x struct {
						Preflight json.RawMessage `json:"preflight"`
					}
					if json.Unmarshal(data, &x) == nil && len(x.Preflight) > 0 {
						extras[id] = x.Preflight
					}
				}
			}
		}
	}
	turn := ""
	for _, pe := range path {
		e, ok := viewEntry(pe, extras)
		if !ok {
			continue
		}
		if e.Type == sessions.TypeAssistant {
			turn = e.ID
		}
		if e.Type == sessions.TypeCustom {
			var r entries.DeliveryRecord
			if json.Unmarshal(e.Payload(), &r) == nil && r.ToolCallID != "" {
				inFile[r.ToolCallID] = true
			}
		}
		out = append(out, e)
	}
	out = toolpolicy.Window(out)
	// Records pi has written need no copy; the others count from here.
	kept := d.pending[:0]
	for _, p := range d.pending {
		if !inFile[p.toolCallID] {
			kept = append(kept, p)
			out = append(out, p.entry)
		}
	}
	d.pending = kept
	return out, turn
}

// branch reads what pi appended and returns the path to the leaf.
func (d *Decisions) branch(ctx context.Context, leafID string) ([]pisession.Entry, error) {
	if d.deps.SessionFile == "" {
		return nil, errNoFile
	}
	if d.sess == nil {
		s, err := pisession.Open(ctx, d.deps.SessionFile, pisession.Options{ReadOnly: true})
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errNoFile
		}
		if err != nil {
			return nil, err
		}
		d.sess = s
	} else if _, err := d.sess.Refresh(ctx); err != nil {
		d.sess.Close()
		d.sess = nil
		return nil, err
	}
	if leafID != "" {
		if p, err := d.sess.PathTo(leafID); err == nil {
			return p, nil
		}
	}
	all := d.sess.Entries()
	if len(all) == 0 {
		return nil, nil
	}
	return d.sess.PathTo(all[len(all)-1].ID)
}

// viewEntry gives a pi entry the shape the delivery decision reads: tool
// results (with a pi-tui preflight when the built-in engine wrote one),
// compactions, delivery records, and every other entry by its id only, so
// a compaction's first kept entry is found whatever it is.
func viewEntry(pe pisession.Entry, extras map[string]json.RawMessage) (sessions.Entry, bool) {
	switch pe.Type {
	case pisession.TypeMessage:
		switch pe.Role() {
		case pisession.RoleToolResult:
			// The stored shape (entries.StoredMessage) of what the decision
			// reads: the preflight, and whether the result failed (a
			// failed result's chain does not count).
			var m struct {
				IsError bool `json:"isError"`
			}
			json.Unmarshal(pe.Member("message"), &m)
			raw, _ := json.Marshal(map[string]any{"message": map[string]any{"parts": []map[string]bool{{"isError": m.IsError}}}, "preflight": extras[pe.ID]})
			return sessions.NewEntry(pe.ID, pe.ParentID, sessions.TypeToolResult, raw), true
		case pisession.RoleAssistant:
			return sessions.NewEntry(pe.ID, pe.ParentID, sessions.TypeAssistant, json.RawMessage("{}")), true
		}
	case pisession.TypeCompaction:
		c, err := pe.Compaction()
		if err != nil {
			return sessions.Entry{}, false
		}
		raw, _ := json.Marshal(sessions.Compaction{FirstKeptEntryID: c.FirstKeptEntryID})
		return sessions.NewEntry(pe.ID, pe.ParentID, sessions.TypeCompaction, raw), true
	case pisession.TypeCustom:
		if ct, _ := pe.StringMember("customType"); ct == RecordType {
			if data := pe.Member("data"); data != nil {
				return sessions.NewEntry(pe.ID, pe.ParentID, sessions.TypeCustom, data), true
			}
		}
	}
	return sessions.NewEntry(pe.ID, pe.ParentID, pe.Type, json.RawMessage("null")), true
}
