package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/review"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// reviewService is the host's review of sessions' changes (ADR 0051).
func (a *app) reviewService() (*review.Service, error) {
	h, err := a.openHost()
	if err != nil {
		return nil, err
	}
	return h.Review, nil
}

// sessionName opens session id (an id or a unique prefix of one, of the
// project --project names when given) for its whole id and a label naming
// it in a sentence.
func (a *app) sessionName(id, project string) (full, label string, err error) {
	s, err := a.openSession(id, project)
	if err != nil {
		return "", "", err
	}
	defer s.Close()
	label = s.ID()
	if t := s.Title(); t != "" {
		label += " " + safetext.Label(firstLine(t))
	}
	return s.ID(), label, nil
}

// sessionsChanges is `sessions changes ID [--project P] [--json]`.
func (a *app) sessionsChanges(args []string) error {
	fs := a.flags("sessions changes")
	asJSON := fs.Bool("json", false, "")
	project := fs.String("project", "", "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui sessions changes")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("sessions changes needs exactly one session ID")
	}
	id, label, err := a.sessionName(pos[0], *project)
	if err != nil {
		return err
	}
	svc, err := a.reviewService()
	if err != nil {
		return err
	}
	list, err := svc.Changes(a.ctx, id)
	if err != nil {
		return err
	}
	if *asJSON {
		if list == nil {
			list = []checkpoints.Change{}
		}
		return writeJSON(a.stdout, list, true)
	}
	return printChanges(a.stdout, id, label, list)
}

// printChanges writes the text form of a session's changes: a line
// naming the session (label) and how many, one line a change, and how to
// undo when something can be.
func printChanges(w io.Writer, id, label string, list []checkpoints.Change) error {
	if len(list) == 0 {
		err := say(w, "Session %s: no file changes recorded.\n", label)
		return err
	}
	inherited, undoable := 0, false
	for _, c := range list {
		if c.State == checkpoints.StateParent {
			inherited++
		}
		if c.State == checkpoints.StateActive && c.Kept {
			undoable = true
		}
	}
	head := fmt.Sprintf("Session %s: %s", label, plural(len(list), "change", "changes"))
	if inherited > 0 {
		head += fmt.Sprintf(", %d made before it was forked (shown, not undone here)", inherited)
	}
	say(w, "%s\n", head)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range list {
		say(tw, "  %d\t%s\t%s\t%s\t%s\t%s\n", c.N, c.State, statusLetter(c.Status), c.Path, lineStat(c), changeOrigin(c))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The walk leaves ignored files out; a user looking for a change to
	// one is told here rather than left to wonder.
	writeText(w, "Not recorded: .git and the files git ignores (.gitignore, info/exclude).\n")
	if undoable {
		err := say(w, "Undo one with: pi-tui sessions undo %s --change N; every file back to before a message: --to ENTRY\n", id)
		return err
	}
	return nil
}

// statusLetter is a change's status as git's short forms write it.
func statusLetter(status string) string { return checkpoints.Letter(status) }

// lineStat is a change's +added −removed, or why it has none.
func lineStat(c checkpoints.Change) string {
	if c.Binary {
		return "binary"
	}
	return fmt.Sprintf("+%d −%d", c.Added, c.Removed)
}

// changeOrigin names the tool and entry that made a change, and what
// keeps it from being undone here.
func changeOrigin(c checkpoints.Change) string {
	var notes []string
	if c.Entry != "" {
		notes = append(notes, "entry "+c.Entry)
	}
	if c.State == checkpoints.StateParent {
		notes = append(notes, "in "+shortSession(c.Session))
	}
	if !c.Kept {
		notes = append(notes, "content not kept: cannot be undone")
	}
	s := c.Tool
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

func shortSession(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// sessionsUndo is `sessions undo ID (--change N | --to ENTRY) [--redo]
// [--force] [--project P]`.
func (a *app) sessionsUndo(args []string) error {
	fs := a.flags("sessions undo")
	project := fs.String("project", "", "")
	change := fs.String("change", "", "")
	to := fs.String("to", "", "")
	redo := fs.Bool("redo", false, "")
	force := fs.Bool("force", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui sessions undo")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("sessions undo needs exactly one session ID")
	}
	u := checkpoints.Undo{To: *to, Redo: *redo, Force: *force}
	switch {
	case *change != "" && *to != "":
		return usagef("sessions undo takes --change N or --to ENTRY, not both")
	case *change == "" && *to == "":
		return usagef("sessions undo needs --change N (a change's number) or --to ENTRY (an entry's id)")
	case *change != "":
		n, err := strconv.Atoi(*change)
		if err != nil || n < 1 {
			return usagef("sessions undo: --change takes a change's number, as sessions changes lists them, not %q", *change)
		}
		u.Changes = []int{n}
	}
	// The session is found first, by the lookup every command shares: the
	// undo then names it by its whole id.
	mt, err := a.lookupSession(pos[0], *project)
	if err != nil {
		return err
	}
	svc, err := a.reviewService()
	if err != nil {
		return err
	}
	res, err := svc.Undo(a.ctx, mt.ID, u)
	if ce := (*checkpoints.ConflictError)(nil); errors.As(err, &ce) && ce.Forceable() && !u.Force {
		them := "them"
		if len(ce.Conflicts) == 1 {
			them = "it"
		}
		return fmt.Errorf("%s (--force overwrites %s)", ce.Error(), them)
	}
	if err != nil {
		return err
	}
	verb, nothing := "Undid", "Nothing to undo: none of those changes is active."
	if u.Redo {
		verb, nothing = "Redid", "Nothing to redo: none of those changes is undone."
	}
	if len(res.Changes) == 0 {
		return writeText(a.stdout, nothing+"\n")
	}
	nums := make([]string, len(res.Changes))
	for i, n := range res.Changes {
		nums[i] = strconv.Itoa(n)
	}
	what := "change " + nums[0]
	if len(nums) > 1 {
		what = "changes " + strings.Join(nums, ", ")
	}
	line := fmt.Sprintf("%s %s", verb, what)
	if u.To != "" {
		line += " (from entry " + u.To + " on)"
	}
	switch len(res.Files) {
	case 0:
		say(a.stdout, "%s.\n", line)
	case 1:
		say(a.stdout, "%s; 1 file:\n", line)
	default:
		say(a.stdout, "%s; %d files:\n", line, len(res.Files))
	}
	for _, f := range res.Files {
		say(a.stdout, "  %s\n", f)
	}
	return nil
}
