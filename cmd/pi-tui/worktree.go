package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
	"github.com/pi-tui/pi-tui/internal/safetext"
	"github.com/pi-tui/pi-tui/store"
)

// worktrees returns the service for worktree sessions (ADR 0029).
func (a *app) worktrees() (*worktree.Service, error) {
	h, err := a.openHost()
	if err != nil {
		return nil, err
	}
	return h.Worktrees, nil
}

// sessionManager is the host's session manager, the runtimes' too.
func (a *app) sessionManager() (*sessions.Manager, error) {
	h, err := a.openHost()
	if err != nil {
		return nil, err
	}
	return h.Sessions, nil
}

// openWorktreeSession opens session id for merge or discard: id is the
// session's id (or a prefix of it), or its branch as the list shows it
// ("pi/00f08c66") or that branch's short id; project is --project.
func (a *app) openWorktreeSession(id, project string) (*sessions.Session, *worktree.Service, error) {
	svc, err := a.worktrees()
	if err != nil {
		return nil, nil, err
	}
	s, err := a.openSession(id, project)
	if errors.Is(err, store.ErrNotFound) {
		full, found, berr := svc.ByBranch(a.ctx, id)
		if berr != nil {
			return nil, nil, berr
		}
		if found {
			s, err = a.openSession(full, project)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	return s, svc, nil
}

// sessionsMerge is `sessions merge ID [--message M] [--project P]`.
func (a *app) sessionsMerge(args []string) error {
	fs := a.flags("sessions merge")
	message := fs.String("message", "", "")
	project := fs.String("project", "", "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui sessions merge")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("sessions merge needs exactly one session ID")
	}
	s, svc, err := a.openWorktreeSession(pos[0], *project)
	if err != nil {
		return err
	}
	defer s.Close()
	msg := *message
	if msg == "" {
		msg = worktree.MergeMessage(s)
	}
	res, w, err := svc.Merge(a.ctx, s, msg)
	if err != nil {
		return err
	}
	how := "fast-forward"
	if !res.FastForward {
		how = "merge commit " + shortCommit(res.Commit)
	}
	if res.Committed {
		say(a.stdout, "Committed the uncommitted changes on %s.\n", w.Branch)
	}
	say(a.stdout, "Merged %s into %s in %s (%s). The worktree stays; discard it with: pi-tui sessions discard %s\n",
		w.Branch, w.Base, safetext.Label(w.Main), how, s.ID())
	return nil
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// sessionsDiscard is `sessions discard ID [--yes] [--project P]`.
func (a *app) sessionsDiscard(args []string) error {
	fs := a.flags("sessions discard")
	yes := fs.Bool("yes", false, "")
	project := fs.String("project", "", "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui sessions discard")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("sessions discard needs exactly one session ID")
	}
	s, svc, err := a.openWorktreeSession(pos[0], *project)
	if err != nil {
		return err
	}
	defer s.Close()
	st, w, err := svc.Status(a.ctx, s)
	if inv := (*worktree.InvalidError)(nil); errors.As(err, &inv) {
		return a.unbind(s, svc, inv, *yes)
	}
	if err != nil {
		return err
	}
	question := worktree.DiscardQuestion(w, st)
	if err := a.confirm(question, "discarded", *yes); err != nil {
		return err
	}
	if _, err := svc.Discard(a.ctx, s); err != nil {
		return err
	}
	say(a.stdout, "Removed the worktree %s and deleted branch %s. The session stays; it works in the project root from now on.\n",
		safetext.Label(w.Dir), w.Branch)
	return nil
}

// confirm asks question on the terminal unless yes; done names what is
// not done when the answer is no ("discarded").
func (a *app) confirm(question, done string, yes bool) error {
	if yes {
		return nil
	}
	if !a.interactive() {
		return fmt.Errorf("%s Not %s: pass --yes to go ahead without asking", question, done)
	}
	say(a.stderr, "%s [y/N] ", question)
	answer, err := a.readLine()
	if err != nil {
		return err
	}
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return errors.New("not " + done)
	}
	return nil
}

// unbind is sessions discard of a session whose worktree binding pi-tui
// cannot verify (ADR 0032): nothing is deleted, since the folder and the
// branch it names may be anyone's; the binding is dropped and the session
// works in the project's main checkout.
func (a *app) unbind(s *sessions.Session, svc *worktree.Service, inv *worktree.InvalidError, yes bool) error {
	question := fmt.Sprintf("The worktree binding of session %s is invalid: %s. Unbind it? Nothing is deleted; the session works in the project's main checkout from then on.",
		s.ID(), inv.Why)
	if err := a.confirm(question, "unbound", yes); err != nil {
		return err
	}
	if _, err := svc.Unbind(a.ctx, s); err != nil {
		return err
	}
	say(a.stdout, "Unbound session %s: it works in the project's main checkout from now on. Nothing was deleted (not %s, not branch %s).\n",
		s.ID(), safetext.Label(inv.W.Dir), safetext.Label(inv.W.Branch))
	return nil
}

// invalidCell is the WORKTREE column of a session whose binding is invalid;
// the sentence follows the table (invalidNotes).
const invalidCell = "INVALID binding (see below)"

// invalidNotes writes, after the sessions table, why each invalid binding
// is invalid and what to do.
func (a *app) invalidNotes(list []sessions.Summary, of worktree.Sessions) error {
	for _, s := range list {
		if inv, ok := of.Invalid[s.ID]; ok {
			if err := say(a.stdout, "\n%s\n", upperFirst(inv.Error())); err != nil {
				return err
			}
		}
	}
	return nil
}

// invalidJSON is sessions list --json of an invalid binding: the record as
// the file has it, and why it does not count.
func invalidJSON(inv *worktree.InvalidError) *worktreeJSON {
	return &worktreeJSON{Root: inv.W.Root, Branch: inv.W.Branch, Base: inv.W.Base, Invalid: inv.Error(), Uncommitted: []string{}}
}

// worktreeCell is the WORKTREE column of sessions list.
func worktreeCell(w sessions.Worktree, st worktree.Status, ok bool) string {
	switch {
	case !ok:
		return w.Branch + " (status unknown)"
	case st.Missing:
		return w.Branch + " (worktree missing)"
	}
	dirty := ""
	if st.Dirty() {
		dirty = " *"
	}
	return w.Branch + dirty + " " + st.Stat()
}

// worktreeJSON is a worktree session's part of sessions list --json.
type worktreeJSON struct {
	Root        string   `json:"root"`
	Invalid     string   `json:"invalid,omitempty"` // the binding cannot be verified: why, and what to do
	Branch      string   `json:"branch"`
	Base        string   `json:"base"`
	Missing     bool     `json:"missing,omitempty"`
	Fix         string   `json:"fix,omitempty"`
	Uncommitted []string `json:"uncommitted"`
	Files       int      `json:"files"`
	Insertions  int      `json:"insertions"`
	Deletions   int      `json:"deletions"`
}
