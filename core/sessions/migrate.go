package sessions

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/store"
)

// The kv marker that says the store's session tables were moved into files.
const (
	migratedNamespace = "pi-tui.sessions"
	migratedKey       = "moved-to-pi-files"
)

// Migrate moves the sessions an older pi-tui kept in the store into pi
// session files, once. Each session is written whole with its own id, to a
// temporary file linked into place, and skipped when a file with its id is
// already there, so a run cut short is simply run again; the marker is set
// when every session was looked at. The store's rows are kept as they were
// (nothing is deleted); a session that cannot be moved (a damaged tree)
// stays there.
func (m *Manager) Migrate(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.migrated {
		return nil
	}
	if _, found, err := m.st.GetKV(ctx, migratedNamespace, migratedKey); err != nil {
		return err
	} else if found {
		m.migrated = true
		return nil
	}
	projects, err := m.st.Projects(ctx, "")
	if err != nil {
		return fmt.Errorf("move sessions to pi files: %w", err)
	}
	for _, p := range projects {
		rows, err := m.st.ProjectSessions(ctx, p.ID, 0)
		if err != nil {
			return fmt.Errorf("move sessions to pi files: %w", err)
		}
		dir := m.Dir(p.Root)
		for _, r := range rows {
			if _, err := pisession.Find(dir, r.ID); err == nil {
				continue // moved by an earlier run
			}
			row, entries, err := m.st.LoadSession(ctx, r.ID)
			if err != nil {
				return fmt.Errorf("move session %s to a pi file: %w", r.ID, err)
			}
			if len(entries) == 0 && row.Title == "" {
				continue // never prompted: pi would have no file for it
			}
			d, err := draftOf(row, entries, p.Root)
			if err != nil {
				continue // left in the store, where it is not lost
			}
			if _, err := pisession.WriteSession(ctx, dir, d, m.opts()); err != nil {
				return fmt.Errorf("move session %s to a pi file: %w", r.ID, err)
			}
		}
	}
	v := "1"
	if err := m.st.CompareAndSwapKV(ctx, migratedNamespace, migratedKey, nil, v); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	m.migrated = true
	return nil
}

// draftOf turns a stored session into a pi session: messages become pi
// messages, pi-tui's records custom entries, the title a session_info, and
// a leaf that is not the last entry gets pisession's leaf marker.
func draftOf(row store.SessionRow, rows []store.EntryRow, root string) (pisession.SessionDraft, error) {
	d := pisession.SessionDraft{ID: row.ID, Created: time.UnixMilli(row.CreatedAt), Cwd: root}
	parentOf := map[string]string{} // an entry's id → the id its children hang from
	seen := map[string]bool{}
	newID := func() string {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		return hex.EncodeToString(b)
	}
	last := ""
	for _, r := range rows {
		if r.ParentID != "" && !seen[r.ParentID] {
			return d, fmt.Errorf("entry %s has no earlier parent: %w", r.ID, ErrDamaged)
		}
		parent := r.ParentID
		if p, ok := parentOf[parent]; ok {
			parent = p
		}
		ts := time.UnixMilli(r.CreatedAt)
		add := func(typ, id, parent string, fields any) {
			d.Entries = append(d.Entries, pisession.Draft{Type: typ, ID: id, ParentID: parent, Timestamp: ts, Fields: fields})
		}
		seen[r.ID] = true
		parentOf[r.ID] = r.ID
		last = r.ID
		switch r.Type {
		case TypeUser, TypeAssistant, TypeToolResult:
			var sm entries.StoredMessage
			if json.Unmarshal(r.Payload, &sm) != nil {
				add(pisession.TypeCustom, r.ID, parent, pisession.Custom{CustomType: customPrefix + "unreadable", Data: json.RawMessage(r.Payload)})
				continue
			}
			add(pisession.TypeMessage, r.ID, parent, struct {
				Message pisession.Message `json:"message"`
			}{toPiMessage(r.Type, sm, ts)})
			if r.Type == TypeToolResult && (sm.Path != "" || sm.Preflight != nil || sm.ToolMs != 0) {
				x := newID()
				add(pisession.TypeCustom, x, r.ID, pisession.Custom{CustomType: customTool,
					Data: mustJSON(toolExtras{ToolResultID: r.ID, Path: sm.Path, Preflight: sm.Preflight, ToolMs: sm.ToolMs})})
				parentOf[r.ID] = x
				last = x
			}
		case TypeCompaction:
			var c Compaction
			_ = json.Unmarshal(r.Payload, &c)
			add(pisession.TypeCompaction, r.ID, parent, pisession.Compaction{Summary: c.Summary, FirstKeptEntryID: c.FirstKeptEntryID, TokensBefore: int64(c.TokensBefore)})
		case TypeModelChange:
			var v struct {
				Model string `json:"model"`
			}
			_ = json.Unmarshal(r.Payload, &v)
			prov, id, _ := strings.Cut(v.Model, "/")
			add(pisession.TypeModelChange, r.ID, parent, pisession.ModelChange{Provider: prov, ModelID: id})
		default: // custom, and anything else
			var rec record
			_ = json.Unmarshal(r.Payload, &rec)
			if rec.Kind == kindThinking {
				add(pisession.TypeThinkingLevelChange, r.ID, parent, pisession.ThinkingLevelChange{ThinkingLevel: rec.ThinkingLevel})
				continue
			}
			kind := rec.Kind
			if kind == "" {
				kind = "record"
			}
			add(pisession.TypeCustom, r.ID, parent, pisession.Custom{CustomType: customPrefix + kind, Data: json.RawMessage(r.Payload)})
		}
	}
	leaf := row.LeafID
	if p, ok := parentOf[leaf]; ok {
		leaf = p
	} else if leaf != "" {
		leaf = last // a leaf naming no entry: continue from the last one
	}
	tail := leaf
	if row.Title != "" {
		x := newID()
		d.Entries = append(d.Entries, pisession.Draft{Type: pisession.TypeSessionInfo, ID: x, ParentID: leaf,
			Timestamp: time.UnixMilli(row.UpdatedAt), Fields: pisession.SessionInfo{Name: row.Title}})
		tail, last = x, x
	}
	if tail != last {
		d.Entries = append(d.Entries, pisession.Draft{Type: pisession.TypeCustom, ID: newID(), ParentID: tail,
			Timestamp: time.UnixMilli(row.UpdatedAt), Fields: pisession.Custom{CustomType: customLeaf}})
	}
	return d, nil
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
