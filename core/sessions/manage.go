package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// Delete removes a session's file, for good. The caller has asked the user
// and closed the session (no runtime holds it). A session that was never
// written (no prompt sent) is only forgotten.
func (m *Manager) Delete(ctx context.Context, id string) error {
	s, err := m.Open(ctx, id)
	if err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	if w, bound := s.Worktree(); bound && w.Active() {
		s.Close()
		return fmt.Errorf("delete session %s: it works in its own worktree (branch %s); discard it first, so its folder and branch are not left behind", s.ID(), w.Branch)
	}
	full, path, persisted, projectID := s.ID(), s.File(), s.pi.Persisted(), s.projectID
	s.Close()
	m.mu.Lock()
	delete(m.pending, full)
	delete(m.known, full)
	m.mu.Unlock()
	if persisted {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete session %s: %w", id, err)
		}
		m.idx.Retain(func(p string) bool { return p != path })
		if projectID != "" {
			// The index follows at the next listing anyway; this keeps the
			// count right at once.
			_ = m.st.UnindexSession(ctx, projectID, fileID(filepath.Base(path)))
		}
	}
	return m.deleted(full)
}

// deleted tells the host core a session is gone, so what it keeps of it
// elsewhere goes too. The file is gone either way: the error says so, and
// what was left behind (Config.Deleted's error says what).
func (m *Manager) deleted(id string) error {
	if m.cfg.Deleted == nil {
		return nil
	}
	if err := m.cfg.Deleted(id); err != nil {
		return fmt.Errorf("session %s was deleted, but %w", id, err)
	}
	return nil
}

// Fork starts a new session of the same project holding the branch of
// session id from its root to the entry upTo ("" for an empty session), as
// pi's fork does: the entries keep their lines, and the new file names the
// old one as its parent session. A fork of a worktree session works in the
// project root.
func (m *Manager) Fork(ctx context.Context, id, upTo string) (*Session, error) {
	s, err := m.Open(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("fork session: %w", err)
	}
	defer s.Close()
	if !s.pi.Persisted() {
		return nil, notFound("fork session %s: it has no messages yet", id)
	}
	path, err := pisession.Fork(ctx, s.pi, filepath.Dir(s.File()), upTo, m.opts())
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", id, err)
	}
	ps, err := pisession.Open(ctx, path, m.opts())
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", id, err)
	}
	if s.projectID != "" {
		_ = m.st.IndexSession(ctx, s.projectID, ps.ID())
	}
	m.mu.Lock()
	m.known[ps.ID()] = path
	m.mu.Unlock()
	f := newSession(ps, s.projectID, m.cfg.Arrived)
	if w, bound := f.Worktree(); bound {
		// The copied branch names the parent's worktree; a fork works in
		// the project root, so two sessions never share one worktree
		// (discarding one would pull the folder from under the other).
		// Its header names the project's folder again, where pi is to
		// work on it.
		err := f.SetCwd(ctx, ownerRoot(f.Cwd(), w))
		if err == nil {
			_, err = f.Append(ctx, TypeCustom, Worktree{Kind: KindWorktree})
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("fork session %s: %w", id, err)
		}
	}
	return f, nil
}

// TreeEntry is one entry of a session's tree as /tree shows it.
type TreeEntry struct {
	Entry
	// Parent is the nearest ancestor that is shown ("" for a top entry):
	// names, labels and pi-tui's markers between them are skipped.
	Parent string
	// Label is the entry's label (pi's label entries), "" when none.
	Label string
	// OnPath says the entry is on the current branch.
	OnPath bool
	// CustomType is a custom entry's or custom message's customType: what
	// the extension (or pi-tui, "pi-tui.<kind>") named the record.
	CustomType string
	// PiOnly marks an entry that pi's tree shows and pi-tui's view of the
	// session (Entries, Path) leaves out: a branch summary, a custom
	// message, another extension's custom entry, a message of a role
	// pi-tui has no type for. Its Type is then pi's type (branch_summary,
	// custom_message, custom) or the message's role (bashExecution, …),
	// its payload empty, and Text what it says.
	PiOnly bool
	// Text is what a PiOnly entry says: a branch summary, a custom
	// message's text, the command of a bash execution ("" for the rest).
	Text string
}

// Tree returns every entry pi-tui shows, and those only pi's tree shows,
// on every branch, in file order, with its shown parent, its label and
// whether it is on the current branch.
func (s *Session) Tree() []TreeEntry {
	all := s.pi.Entries()
	labels := map[string]string{}
	parentOf := make(map[string]string, len(all))
	for _, pe := range all {
		parentOf[pe.ID] = pe.ParentID
		if pe.Type == pisession.TypeLabel {
			if l, err := pe.Label(); err == nil {
				labels[l.TargetID] = l.Label // the latest wins; "" removes
			}
		}
	}
	onPath := map[string]bool{}
	for _, pe := range s.pi.Path() {
		onPath[pe.ID] = true
	}
	shown := s.viewAll(all)
	view := make(map[string]Entry, len(shown))
	for _, e := range shown {
		view[e.ID] = e
	}
	out := make([]TreeEntry, 0, len(shown))
	isShown := make(map[string]bool, len(shown))
	for _, pe := range all {
		te, ok := TreeEntry{Entry: view[pe.ID]}, true
		if te.ID == "" {
			te, ok = piOnly(pe)
		} else if pe.Type == pisession.TypeCustom {
			te.CustomType, _ = pe.StringMember("customType")
		}
		if ok {
			isShown[pe.ID] = true
			out = append(out, te)
		}
	}
	for i := range out {
		p := out[i].ParentID
		for range len(all) {
			if p == "" || isShown[p] {
				break
			}
			p = parentOf[p]
		}
		out[i].Parent, out[i].Label, out[i].OnPath = p, labels[out[i].ID], onPath[out[i].ID]
	}
	return out
}

// piOnly is the tree's entry for a pi entry that pi-tui's view leaves
// out, when pi's tree shows it; ok is false for the bookkeeping it hides
// (labels, names, context edits, usage, system prompts) and for
// pi-tui's own markers.
func piOnly(pe pisession.Entry) (te TreeEntry, ok bool) {
	te = TreeEntry{Entry: Entry{ID: pe.ID, ParentID: pe.ParentID, Type: pe.Type}, PiOnly: true}
	switch pe.Type {
	case pisession.TypeBranchSummary:
		b, _ := pe.BranchSummary()
		te.Text = b.Summary
	case pisession.TypeCustomMessage:
		c, _ := pe.CustomMessage()
		te.CustomType, te.Text = c.CustomType, c.Content.PlainText("")
	case pisession.TypeCustom:
		te.CustomType, _ = pe.StringMember("customType")
		if te.CustomType == customLeaf || te.CustomType == customTool {
			return te, false
		}
	case pisession.TypeMessage:
		m, err := pe.Message()
		if err != nil || m.Role == pisession.RoleSystem {
			return te, false
		}
		te.Type, te.Text = m.Role, m.Content.PlainText("")
		if m.Role == pisession.RoleBashExecution {
			json.Unmarshal(m.ExtraMember("command"), &te.Text)
		}
	default:
		return te, false
	}
	return te, true
}
