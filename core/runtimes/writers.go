package runtimes

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// Other writers of a session that runs on pi (ADR 0068). The user's pi
// holds its session in memory and never rereads the file: a turn another
// program (`pi -c`, another pi-tui) appended is unknown to it, and its
// next entry would hang under its own, older leaf, putting that turn on a
// side branch. So before a prompt the manager asks the idle pi for its
// leaf (get_entries) and relaunches it when the file moved on without it;
// after a turn during which another writer forked the session, the
// session is put back on pi's branch and the views are told.

// ReasonOtherWriter retires a pi runtime whose session file another
// program (or pi-tui itself) wrote to since pi read it: the new pi reads
// the file, that writer's entries included.
const ReasonOtherWriter = "other-writer"

// piCallTimeout bounds the manager's own questions to pi around a turn,
// as long as pi's engine waits for any of its commands by default.
const piCallTimeout = 10 * time.Second

// piLeaf asks pi for its leaf, giving since (an entry pi has; "" for
// none) as get_entries' cursor, so the answer carries only what pi holds
// after it. An error means pi does not have since (or did not answer).
func piLeaf(ctx context.Context, p process, since string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, piCallTimeout)
	defer cancel()
	var params map[string]string
	if since != "" {
		params = map[string]string{"since": since}
	}
	data, err := p.Call(ctx, "get_entries", params)
	if err != nil {
		return "", err
	}
	var r struct {
		LeafID *string `json:"leafId"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return "", fmt.Errorf("pi's get_entries: %w", err)
	}
	if r.LeafID == nil {
		return "", nil
	}
	return *r.LeafID, nil
}

// piInStep reports whether an idle pi runtime continues where its session
// file does: pi has the session's last entry on the branch pi-tui shows,
// and its leaf is that entry. A session without entries, or a file that
// cannot be read now, is taken as in step (a relaunch would read no more).
func piInStep(ctx context.Context, rt *Runtime) bool {
	if rt.pi == nil {
		return true
	}
	s := rt.Session
	if _, err := s.Refresh(ctx); err != nil {
		return true
	}
	leaf := s.Cursor().Leaf
	if leaf == "" {
		return true
	}
	got, err := piLeaf(ctx, rt.pi, leaf)
	return err == nil && s.Continues(got)
}

// turnMark is where a pi runtime's session stood when a prompt or
// compaction began (pi had that leaf: piInStep said so).
func turnMark(rt *Runtime) sessions.Cursor {
	if rt.pi == nil {
		return sessions.Cursor{}
	}
	return rt.Session.Cursor()
}

// afterPiTurn runs when a pi turn ends. Another writer may have appended
// meanwhile: entries hanging under an entry of the turn (pi -c opened the
// file mid-turn) make a side branch, and the session's leaf, which
// follows what arrives, may have gone there. pi's turn keeps the branch:
// the leaf goes back to pi's last entry (the file's last entry if that
// continues it), with a marker when needed so that pi reopening and
// `pi -c` agree, and a notice says where the other entries are. Entries
// appended below pi's last entry continue its branch: they are followed,
// and the next prompt relaunches pi on them (piInStep).
func (m *Manager) afterPiTurn(rt *Runtime, mark sessions.Cursor) {
	if rt.pi == nil || rt.dead() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), piCallTimeout)
	defer cancel()
	s := rt.Session
	if _, err := s.Refresh(ctx); err != nil {
		return
	}
	last := s.FileLeaf()
	if s.OffBranch(mark) == 0 && s.Cursor().Leaf == last {
		return // one branch, ending where the file does: nothing forked
	}
	pl, err := piLeaf(ctx, rt.pi, mark.Leaf)
	if err != nil || pl == "" {
		return // pi is out of step: the next prompt relaunches it
	}
	target := pl
	if last != "" && s.Descends(last, pl) {
		target = last
	}
	if s.Cursor().Leaf != target {
		if err := s.Keep(ctx, target); err != nil {
			m.emit(events.Notice{SessionID: s.ID(), Level: "warning", Source: "pi-tui", Text: "could not keep the session on pi's branch: " + err.Error()})
		}
	}
	if n := s.OffBranch(mark); n > 0 {
		m.emit(events.Notice{SessionID: s.ID(), Level: "warning", Source: "pi-tui", Text: sideBranchText(n)})
	}
	// Every view rereads the branch the session continues.
	m.emit(events.SessionAppended{SessionID: s.ID()})
}

// sideBranchText says that another writer's entries landed beside the
// turn.
func sideBranchText(n int) string {
	what := "1 entry"
	if n != 1 {
		what = fmt.Sprintf("%d entries", n)
	}
	return "another program wrote to this session during the turn: its " + what + " went on a side branch (/tree shows it); the session continues from this turn"
}
