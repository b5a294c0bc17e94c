package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// listOptions are how a listing reads session files. List and ListAll
// share the Manager's index of summaries, so they read with the same
// options: a summary one of them cached serves the other.
func listOptions() pisession.Options {
	return pisession.Options{ReadOnly: true, SummaryCustom: []string{customPrefix + KindWorktree}}
}

// ListAll returns the session files of every project, most recently
// active first (each Summary names its project): what the command
// palette searches. It reads the folders as List does, through the same
// index, so a second call rereads only the files that changed since; a
// project whose folder cannot be read is left out rather than failing
// the rest. Files that cannot be opened (Broken) are left out too: the
// project's own list shows them with their reason. Unlike List it does
// not write the store's index of session files, which Reconcile keeps.
func (m *Manager) ListAll(ctx context.Context) ([]Summary, error) {
	if err := m.Migrate(ctx); err != nil {
		return nil, err
	}
	rows, err := m.st.Projects(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []Summary
	keep := func(s pisession.Summary, projectID string) {
		if s.Broken {
			return
		}
		sum := summaryOf(s, projectID)
		out = append(out, sum)
		if s.ID != "" {
			m.mu.Lock()
			m.known[s.ID] = s.Path
			m.mu.Unlock()
		}
	}
	if m.cfg.SessionDir != "" {
		// One folder holds every project's files: each goes to the
		// project whose root its header names.
		byRoot := make(map[string]string, len(rows))
		for _, r := range rows {
			byRoot[r.Root] = r.ID
		}
		sums, err := pisession.List(ctx, m.cfg.SessionDir, m.idx, listOptions())
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		for _, s := range sums {
			if id, ok := byRoot[summaryRoot(s)]; ok {
				keep(s, id)
			}
		}
	} else {
		for _, r := range rows {
			sums, err := pisession.List(ctx, m.Dir(r.Root), m.idx, listOptions())
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				continue // an unreadable folder: its project's own list says why
			}
			for _, s := range sums {
				keep(s, r.ID)
			}
		}
	}
	sortRecentFirst(out)
	return out, nil
}
