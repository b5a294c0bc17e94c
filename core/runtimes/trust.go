package runtimes

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/pi-tui/pi-tui/core/events"
)

// Project trust under pi (ADR 0064): pi asks project_trust at its start
// for a project with resources of its own; the bridge answers with the
// project's trust, and the launch says which resources pi loaded or
// declined, and why.

// piTrust is the bridge's trust question for a pi runtime of the project:
// yes when the project is trusted and still at the root the spec was
// built for; else no, with a reason that says how to trust it.
func (m *Manager) piTrust(projectID, projectRoot string) func(ctx context.Context) (bool, string, error) {
	return func(ctx context.Context) (bool, string, error) {
		p, err := m.opts.Host.Projects.Binding(ctx, projectID)
		if err != nil {
			return false, "", err
		}
		if p.Root != projectRoot {
			return false, "the project moved since this runtime's launch", nil
		}
		if p.Trusted {
			return true, "", nil
		}
		ref := projectID
		if full, err := m.opts.Host.Projects.Get(ctx, projectID); err == nil && plainWord.MatchString(full.Name) {
			ref = full.Name
		}
		return false, "the project is not trusted: press t in Projects / pi-tui projects trust " + ref, nil
	}
}

// plainWord is a project name a command line takes as it is.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// launchResources is what a launched pi runtime's bridge answered to
// project_trust, as runtime_launched carries it, and the notice that says
// it in words; nil and "" when pi asked nothing.
func launchResources(rt *Runtime) (*events.ProjectResources, events.Notice) {
	if rt.pi == nil {
		return nil, events.Notice{}
	}
	res := rt.pi.ProjectResources()
	if res == nil {
		return nil, events.Notice{}
	}
	sid := rt.Session.ID()
	if len(res.Loaded) > 0 {
		return res, events.Notice{SessionID: sid, Level: "info", Source: "pi-tui", Text: "pi loaded this project's own resources (the project is trusted): " + strings.Join(res.Loaded, ", ")}
	}
	return res, events.Notice{SessionID: sid, Level: "warning", Source: "pi-tui", Text: fmt.Sprintf("pi declined this project's own resources (%s): %s", res.Reason, strings.Join(res.Declined, ", "))}
}
