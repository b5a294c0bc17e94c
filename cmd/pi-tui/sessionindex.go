package main

import (
	"github.com/pi-tui/pi-tui/core/session"
)

// reconcileSessions brings the store's index of session files in line with
// the folders before a listing counts sessions, so sessions begun in pi (or
// files removed by hand) count. A failure only leaves a count stale, so it
// is not reported.
func (a *app) reconcileSessions() {
	st, err := a.open()
	if err != nil {
		return
	}
	_, _ = session.NewManager(st, session.Config{AgentDir: a.placesOrEmpty().AgentDir,
		SessionDir: a.env("PI_CODING_AGENT_SESSION_DIR")}).Reconcile(a.ctx)
}
