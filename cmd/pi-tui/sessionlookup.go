package main

import (
	"errors"
	"fmt"

	"github.com/pi-tui/pi-tui/core/sessions"
)

// Every command that takes a session's id finds the session through the
// session manager's one lookup (sessions.Manager.Lookup, under OpenIn),
// which sees every project's session files: an id (or prefix) that names
// more than one session is refused with the candidates, exit status 2,
// and --project keeps the lookup to one project's.

// scopeID returns the id of the project a --project value names, "" when
// it is empty (every project's sessions).
func (a *app) scopeID(project string) (string, error) {
	if project == "" {
		return "", nil
	}
	_, p, err := a.find(project)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

// lookupSession finds the session id names, of the project --project
// names when it is given.
func (a *app) lookupSession(id, project string) (sessions.Match, error) {
	sm, err := a.sessionManager()
	if err != nil {
		return sessions.Match{}, err
	}
	pid, err := a.scopeID(project)
	if err != nil {
		return sessions.Match{}, err
	}
	mt, err := sm.Lookup(a.ctx, id, pid)
	return mt, withProjectHint(err)
}

// openSession opens the session id names, of the project --project names
// when it is given.
func (a *app) openSession(id, project string) (*sessions.Session, error) {
	sm, err := a.sessionManager()
	if err != nil {
		return nil, err
	}
	pid, err := a.scopeID(project)
	if err != nil {
		return nil, err
	}
	s, err := sm.OpenIn(a.ctx, pid, id)
	return s, withProjectHint(err)
}

// withProjectHint adds to an ambiguous id's error, for a command that
// takes --project, that naming the project is the other way out.
func withProjectHint(err error) error {
	var amb *sessions.AmbiguousError
	if errors.As(err, &amb) && amb.Project == "" {
		return fmt.Errorf("%w, or name its project with --project P", err)
	}
	return err
}

// isAmbiguous reports whether err is an id that names several sessions:
// a mistake on the command line, exit status 2.
func isAmbiguous(err error) bool {
	var amb *sessions.AmbiguousError
	return errors.As(err, &amb)
}
