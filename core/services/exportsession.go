package services

import (
	"context"
	"io"

	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/sessionexport"
)

// ExportSession writes the session id (of project projectID, "" for any)
// in o's format, with every file change its tool calls made as the Review
// screen shows it (the diffs are left out, not the export, when the
// checkpoints cannot be read). It returns the session's id.
func (s *Services) ExportSession(ctx context.Context, id, projectID string, w io.Writer, o sessionexport.Options) (string, error) {
	m, err := s.Sessions.Lookup(ctx, id, projectID)
	if err != nil {
		return "", err
	}
	ps, err := pisession.Open(ctx, m.Path, pisession.Options{ReadOnly: true})
	if err != nil {
		return "", err
	}
	defer ps.Close()
	if o.Format != sessionexport.JSONL && o.Diffs == nil && s.Review != nil {
		o.Diffs = s.sessionDiffs(ctx, ps.ID())
	}
	return ps.ID(), sessionexport.Write(w, ps, o)
}

// sessionDiffs are a session's file changes by the tool call that made
// them.
func (s *Services) sessionDiffs(ctx context.Context, id string) map[string][]sessionexport.FileDiff {
	cs, err := s.Review.Changes(ctx, id)
	if err != nil || len(cs) == 0 {
		return nil
	}
	texts, err := s.Review.Diffs(ctx, cs)
	if err != nil {
		return nil
	}
	out := map[string][]sessionexport.FileDiff{}
	for i, c := range cs {
		out[c.ToolCallID] = append(out[c.ToolCallID], sessionexport.FileDiff{Path: c.Path, Status: c.Status, Added: c.Added, Removed: c.Removed, Diff: texts[i]})
	}
	return out
}
