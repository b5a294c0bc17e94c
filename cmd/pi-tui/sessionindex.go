package main

// reconcileSessions brings the store's index of session files in line with
// the folders before a listing counts sessions, so sessions begun in pi (or
// files removed by hand) count. A failure only leaves a count stale, so it
// is not reported.
func (a *app) reconcileSessions() {
	sm, err := a.sessionManager()
	if err != nil {
		return
	}
	_, _ = sm.Reconcile(a.ctx)
}
