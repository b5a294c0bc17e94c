package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/rpc"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/core/services"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// projectFor picks --project or the registered project holding the
// working directory.
func (a *app) projectFor(flagValue string) (registry.Project, error) {
	if flagValue != "" {
		_, p, err := a.find(flagValue)
		return p, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return registry.Project{}, err
	}
	p, ok, err := a.projectHolding(cwd)
	if err != nil {
		return registry.Project{}, err
	}
	if !ok {
		return registry.Project{}, errors.New("no project given and the working directory is not inside a registered project: pass --project P, or register this folder with: pi-tui projects add DIR")
	}
	return p, nil
}

func (a *app) promptCmd(args []string) error {
	fs := a.flags("prompt")
	project := fs.String("project", "", "")
	model := fs.String("model", "", "")
	thinking := fs.String("thinking", "", "")
	sessionID := fs.String("session", "", "")
	cont := fs.Bool("continue", false, "")
	asJSON := fs.Bool("json", false, "")
	yes := fs.Bool("yes", false, "")
	inWorktree := fs.Bool("worktree", false, "")
	base := fs.String("base", "", "")
	eng := fs.String("engine", "", "")
	plan := fs.Bool("plan", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui prompt")
	}
	if err != nil {
		return err
	}
	if err := checkEngine("prompt", *eng); err != nil {
		return err
	}
	text := strings.TrimSpace(strings.Join(pos, " "))
	if text == "-" {
		data, err := io.ReadAll(io.LimitReader(a.stdin, 4<<20))
		if err != nil {
			return fmt.Errorf("read the prompt from standard input: %w", err)
		}
		text = strings.TrimSpace(string(data))
	}
	if text == "" {
		return usagef("prompt needs TEXT (or - to read it from standard input)")
	}
	if *sessionID != "" && *cont {
		return usagef("prompt: give --session or --continue, not both")
	}
	if *inWorktree && (*sessionID != "" || *cont) {
		return usagef("prompt: --worktree starts a new session; it does not go with --session or --continue")
	}
	if *base != "" && !*inWorktree {
		return usagef("prompt: --base is the branch a new worktree starts from; give it with --worktree")
	}
	spec := *model
	if *thinking != "" {
		level, err := provider.ParseThinkingLevel(*thinking)
		if err != nil {
			return usagef("prompt --thinking: %v", err)
		}
		m, _ := provider.SplitThinking(spec)
		spec = provider.WithThinking(m, level)
	}
	// Every call this run denies is denied here: nobody shows the session.
	var deniedMu sync.Mutex
	var denied []string
	opts := runtimes.Options{Engine: *eng}
	if *yes {
		opts.Approve = func(context.Context, events.Approval) (bool, error) { return true, nil }
	} else {
		// Nobody is asked: the model must not read that a person said no.
		opts.Approve = func(_ context.Context, req events.Approval) (bool, error) {
			deniedMu.Lock()
			denied = append(denied, req.Tool)
			deniedMu.Unlock()
			return false, &toolpolicy.DeniedError{Unasked: fmt.Sprintf("This %s call needs approval, and this run (pi-tui prompt without --yes) gives none; nobody was asked. "+
				"Do not retry it; finish what you can without it and say what was left undone.", req.Tool)}
		}
	}
	h, err := a.openHostWith(opts)
	if err != nil {
		return err
	}
	if *asJSON {
		defer rpc.StreamEvents(h.Events, rpc.NewLines(jsonText{a.stdout}))()
		defer a.close() // first: the runtimes' retirements are the last lines
	} else {
		// Warnings and extensions' notices go to standard error (standard
		// output is the answer); --json carries them as notice events.
		defer printNotices(h.Events, a.stderr)()
		defer a.close()
	}
	p, err := a.projectFor(*project)
	if err != nil {
		return err
	}
	m := h.Runtimes
	var s string
	if *inWorktree {
		s, err = a.worktreeSession(h.Sessions, p.ID, *base)
	} else {
		s, err = a.sessionFor(h.Sessions, p, *project != "", *sessionID, *cont)
	}
	if err != nil {
		return err
	}
	// /skill:name and /template calls expand as pi expands them.
	if text, err = m.Expand(a.ctx, s, text); err != nil {
		return err
	}
	if *plan {
		// Read-only tools and the plan section, whatever --yes allows:
		// plan mode refuses every other call before any approval.
		m.Plans().Set(s, true)
	}
	res, err := m.Prompt(a.ctx, s, spec, text)
	deniedErr := func() error {
		if len(denied) == 0 {
			return nil
		}
		were := "were"
		if len(denied) == 1 {
			were = "was"
		}
		return &codeError{code: exitDenied, msg: fmt.Sprintf("%s needed approval and %s denied (%s); run with --yes to allow them",
			plural(len(denied), "tool call", "tool calls"), were, strings.Join(denied, ", "))}
	}
	if err != nil && len(denied) > 0 {
		say(a.stderr, "pi-tui: note: %v\n", deniedErr())
	}
	if err != nil {
		if !*asJSON && res.Text != "" {
			// Keep what arrived: the partial answer, then the reason.
			writeText(a.stdout, safetext.Visible(res.Text)+"\n")
		}
		return err
	}
	if res.Aborted {
		return errors.New("the prompt was aborted; what arrived is kept in the session")
	}
	if !*asJSON {
		// The model's text, with control characters shown as text: an
		// answer must not set the clipboard or hide text in the terminal
		// it is printed to. --json carries it exactly.
		writeText(a.stdout, safetext.Visible(res.Text)+"\n")
		if *plan {
			say(a.stderr, "pi-tui: note: plan mode: nothing was changed; to run the plan: pi-tui prompt --session %s \"carry out the plan\"\n", s)
		}
	}
	return deniedErr()
}

// worktreeSession starts a session in a worktree of its own and says
// where on standard error (standard output is the answer).
func (a *app) worktreeSession(sm *sessions.Manager, projectID, base string) (string, error) {
	svc, err := a.worktrees()
	if err != nil {
		return "", err
	}
	s, w, err := svc.NewSession(a.ctx, sm, projectID, base, "")
	if err != nil {
		return "", err
	}
	say(a.stderr, "pi-tui: note: session %s works on branch %s (from %s) in %s\n", s.ID(), w.Branch, w.Base, safetext.Label(w.Root))
	return s.ID(), nil
}

// sessionFor returns the session id to use: --session (which must belong
// to the project; with --project, scoped, the lookup keeps to that
// project's sessions), the latest with --continue, or a new one.
func (a *app) sessionFor(sm *sessions.Manager, p registry.Project, scoped bool, id string, cont bool) (string, error) {
	switch {
	case id != "":
		pid := ""
		if scoped {
			pid = p.ID
		}
		s, err := sm.OpenIn(a.ctx, pid, id)
		if err != nil {
			return "", withProjectHint(err)
		}
		defer s.Close()
		if s.ProjectID() != p.ID {
			return "", fmt.Errorf("session %s belongs to another project", s.ID())
		}
		return s.ID(), nil
	case cont:
		if sum, ok, err := sm.Latest(a.ctx, p.ID); err != nil {
			return "", err
		} else if ok {
			return sum.ID, nil
		}
	}
	s, err := sm.Create(a.ctx, p.ID, "")
	if err != nil {
		return "", err
	}
	return s.ID(), nil
}

// sessionList lists a project's sessions, newest first.
func (a *app) sessionList(projectID string) ([]sessions.Summary, error) {
	sm, err := a.sessionManager()
	if err != nil {
		return nil, err
	}
	return sm.List(a.ctx, projectID)
}

func (a *app) sessionsCmd(args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		return a.helpCmd([]string{"sessions"})
	}
	if len(args) > 0 {
		switch args[0] {
		case "changes":
			return a.sessionsChanges(args[1:])
		case "undo":
			return a.sessionsUndo(args[1:])
		case "merge":
			return a.sessionsMerge(args[1:])
		case "discard":
			return a.sessionsDiscard(args[1:])
		case "import":
			return a.sessionsImport(args[1:])
		case "export":
			return a.sessionsExport(args[1:])
		}
	}
	if len(args) == 0 || args[0] != "list" {
		return usagef("sessions: the subcommands are list, changes, undo, merge, discard, import and export (pi-tui help sessions)")
	}
	fs := a.flags("sessions list")
	asJSON := fs.Bool("json", false, "")
	pos, err := parse(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui sessions")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("sessions list needs exactly one PROJECT")
	}
	_, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	list, err := a.sessionList(p.ID)
	if err != nil {
		return err
	}
	svc, err := a.worktrees()
	if err != nil {
		return err
	}
	of := svc.Of(a.ctx, p.ID, list)
	statuses := svc.Statuses(a.ctx, of.Bound, 0)
	if *asJSON {
		type row struct {
			ID        string        `json:"id"`
			Title     string        `json:"title"`
			CreatedAt int64         `json:"createdAt"`
			UpdatedAt int64         `json:"updatedAt"`
			Entries   int           `json:"entries"`
			Path      string        `json:"path"`
			Problem   string        `json:"problem,omitempty"`
			Worktree  *worktreeJSON `json:"worktree,omitempty"`
		}
		rows := make([]row, 0, len(list))
		for _, s := range list {
			r := row{ID: s.ID, Title: s.Title, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, Entries: s.Entries, Path: s.Path, Problem: s.Problem}
			if w, ok := of.Bound[s.ID]; ok {
				st := statuses[s.ID]
				r.Worktree = &worktreeJSON{Root: w.Root, Branch: w.Branch, Base: w.Base, Missing: st.Missing, Fix: st.Fix,
					Uncommitted: append([]string{}, st.Changed...), Files: st.Files, Insertions: st.Insertions, Deletions: st.Deletions}
			}
			if inv, ok := of.Invalid[s.ID]; ok {
				r.Worktree = invalidJSON(inv)
			}
			rows = append(rows, r)
		}
		return writeJSON(a.stdout, rows, true)
	}
	if len(list) == 0 {
		say(a.stdout, "%s has no sessions yet. Start one with: pi-tui prompt --project %s TEXT\n", p.Name, p.ID)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	hasWorktrees := len(of.Bound)+len(of.Invalid) > 0
	if hasWorktrees {
		// Worktree sessions: their branch, * for uncommitted changes, and
		// the diff stat against the base.
		writeText(tw, "ID\tUPDATED\tENTRIES\tWORKTREE\tTITLE\n")
	} else {
		writeText(tw, "ID\tUPDATED\tENTRIES\tTITLE\n")
	}
	for _, s := range list {
		title := sessions.Label(s.Title, s.FirstMessage)
		if s.Problem != "" {
			title = "(" + s.Problem + ") " + title
		}
		updated := time.UnixMilli(s.UpdatedAt).Local().Format("2006-01-02 15:04")
		if !hasWorktrees {
			say(tw, "%s\t%s\t%d\t%s\n", s.ID, updated, s.Entries, firstLine(title))
			continue
		}
		cell := "-"
		if w, ok := of.Bound[s.ID]; ok {
			st, ok := statuses[s.ID]
			cell = worktreeCell(w, st, ok)
		}
		if _, ok := of.Invalid[s.ID]; ok {
			cell = invalidCell
		}
		say(tw, "%s\t%s\t%d\t%s\t%s\n", s.ID, updated, s.Entries, cell, firstLine(title))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return a.invalidNotes(list, of)
}

func (a *app) rpcCmd(args []string) error {
	fs := a.flags("rpc")
	project := fs.String("project", "", "")
	model := fs.String("model", "", "")
	eng := fs.String("engine", "", "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui rpc")
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("rpc takes no arguments; it reads JSON commands on standard input")
	}
	if err := checkEngine("rpc", *eng); err != nil {
		return err
	}
	h, err := a.openHostWith(runtimes.Options{Engine: *eng})
	if err != nil {
		return err
	}
	p, err := a.projectFor(*project)
	if err != nil {
		return err
	}
	out := rpc.NewLines(jsonText{a.stdout})
	defer rpc.StreamEvents(h.Events, out)()
	defer a.close() // first: the runtimes' retirements are the last lines
	s, err := a.sessionFor(h.Sessions, p, false, "", false)
	if err != nil {
		return err
	}
	return rpc.Serve(a.ctx, a.stdin, rpc.Config{Host: h, Out: out, Project: p, Session: s, Model: *model, Env: a.env})
}

// checkEngine refuses an --engine value that is not auto or one of the
// engines the composition root registers.
func checkEngine(cmd, value string) error {
	choices := services.EngineChoices(host.DefaultEngines(paths.Places{}, nil).Names())
	if value != "" && !slices.Contains(choices, value) {
		return usagef("%s --engine: unknown engine %q (%s)", cmd, value, strings.Join(choices, ", "))
	}
	return nil
}

// firstLine keeps a listing to one line per session.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// printNotices writes each notice of the run (events.Notice: pi-tui's
// warnings, an extension's notify or error) to w as one line, until stop
// is called, which returns once what was published is written.
func printNotices(b *events.Broker, w io.Writer) (stop func()) {
	return b.Follow(events.Agent, func(e events.Event) {
		if n, ok := e.(events.Notice); ok {
			say(w, "pi-tui: %s: %s\n", noticeWord(n.Level), n.Text)
		}
	})
}

// noticeWord is how a notice's level reads on standard error.
func noticeWord(level string) string {
	switch level {
	case "warning", "error":
		return level
	}
	return "note"
}
