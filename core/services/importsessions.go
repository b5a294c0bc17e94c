package services

import (
	"context"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/sessionimport"
)

// ImportSessions imports other agents' sessions (sessionimport.Import) into
// the session folders of the registered projects, archived ones included,
// and then brings the session index in line, so the projects' session
// counts and lists show the new files at once (as AddProject does).
func (s *Services) ImportSessions(ctx context.Context, loc sessionimport.Locations, opts sessionimport.Options) (sessionimport.Result, error) {
	list, err := s.Projects.List(ctx, true)
	if err != nil {
		return sessionimport.Result{}, err
	}
	opts.Projects = opts.Projects[:0]
	for _, p := range list {
		opts.Projects = append(opts.Projects, sessionimport.Project{ID: p.ID, Name: p.Name, Root: p.Root, Dir: s.Sessions.Dir(p.Root)})
	}
	res, err := sessionimport.Import(ctx, loc, opts)
	if len(res.Sessions) > 0 && !opts.DryRun {
		_, _ = s.Sessions.Reconcile(ctx)           // a stale count is all a failure costs
		s.Events.Publish(events.ProjectsChanged{}) // every program lists them
	}
	return res, err
}
