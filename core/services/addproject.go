package services

import (
	"context"

	"github.com/pi-tui/pi-tui/core/registry"
)

// AddProject registers the folder at path as a project (projects.Registry.Add)
// and then counts the sessions pi already has for it, so a folder pi has
// worked in shows its sessions in the Projects list at once, not after it is
// first opened. A failed count only leaves the count stale: the sessions are
// pi's files, listed whenever the project is opened.
func (s *Services) AddProject(ctx context.Context, path, name string, trusted bool) (p registry.Project, created bool, err error) {
	p, created, err = s.Projects.Add(ctx, path, name, trusted)
	if err != nil {
		return p, created, err
	}
	if _, rerr := s.Sessions.Reconcile(ctx); rerr == nil {
		if fresh, gerr := s.Projects.Get(ctx, p.ID); gerr == nil {
			p = fresh
		}
	}
	return p, created, nil
}
