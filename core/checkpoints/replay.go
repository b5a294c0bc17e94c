package checkpoints

import (
	"context"
	"time"
)

// replay gives a journal's changes with their states (undo and redo
// records applied in order).
func replay(session string, recs []record) []Change {
	var out []Change
	at := map[int]int{} // change number -> index in out
	for _, r := range recs {
		switch r.Type {
		case "change":
			if r.N <= 0 || r.Before == nil || r.After == nil {
				continue
			}
			if _, dup := at[r.N]; dup {
				continue
			}
			at[r.N] = len(out)
			out = append(out, Change{N: r.N, Entry: r.Entry, ToolCallID: r.ToolCallID, Tool: r.Tool, Path: r.shown(), Folder: r.Folder, Status: r.Status,
				Added: r.Added, Removed: r.Removed, State: StateActive, Binary: r.Binary, Kept: r.Before.Kept && r.After.Kept,
				Session: session, At: time.UnixMilli(r.At).UTC()})
		case "undo", "redo":
			state := StateUndone
			if r.Type == "redo" {
				state = StateActive
			}
			for _, n := range r.Changes {
				if i, ok := at[n]; ok {
					out[i].State = state
				}
			}
		}
	}
	return out
}

func (s *Store) changes(ctx context.Context, info SessionInfo) ([]Change, error) {
	held := make(map[string]bool, len(info.Order))
	for _, id := range info.Order {
		held[id] = true
	}
	var out []Change
	for i := len(info.Ancestors) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a := info.Ancestors[i]
		recs, err := readJournal(s.journalFor(a).path)
		if err != nil {
			return nil, err
		}
		for _, c := range replay(a, recs) {
			if c.Entry != "" && held[c.Entry] {
				c.State = StateParent
				out = append(out, c)
			}
		}
	}
	recs, err := readJournal(s.journalFor(info.ID).path)
	if err != nil {
		return nil, err
	}
	return append(out, replay(info.ID, recs)...), nil
}
