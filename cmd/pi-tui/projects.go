package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
)

func (a *app) projects(args []string) error {
	if len(args) == 0 {
		return usagef("projects: name a subcommand: list, add, rename, pin, unpin, archive, restore, trust, untrust, remove, group, ungroup, relocate, folders")
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "list":
		return a.projectsList(args)
	case "add":
		return a.projectsAdd(args)
	case "rename":
		return a.projectsRename(args)
	case "pin", "unpin", "archive", "restore", "trust", "untrust", "remove":
		return a.projectsFlag(sub, args)
	case "group", "ungroup":
		return a.projectsGroup(sub, args)
	case "relocate":
		return a.projectsRelocate(args)
	case "folders":
		return a.projectsFolders(args)
	case "-h", "--help", "help":
		return a.helpFor("pi-tui projects")
	}
	return usagef("projects: unknown subcommand %q", sub)
}

func (a *app) projectsList(args []string) error {
	fs := a.flags("projects list")
	all := fs.Bool("all", false, "")
	asJSON := fs.Bool("json", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("projects list")
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("projects list takes no arguments, got %q", pos[0])
	}
	reg, err := a.registry()
	if err != nil {
		return err
	}
	a.reconcileSessions()
	list, err := reg.List(a.ctx, *all)
	if err != nil {
		return err
	}
	for _, e := range reg.TrustProblems(a.ctx) {
		say(a.stderr, "pi-tui: warning: %v; no project is trusted by it until it is fixed\n", e)
	}
	if *asJSON {
		return writeJSON(a.stdout, list, false)
	}
	if len(list) == 0 {
		writeText(a.stdout, "No projects yet. Add one with: pi-tui projects add PATH\n")
		return nil
	}
	home := a.env("HOME")
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	writeText(tw, "NAME\tID\tROOT\tGROUP\tMEMORY\tSESSIONS\tLAST OPENED\tSTATE\n")
	for _, p := range list {
		group := "-"
		if p.Group != "" {
			group = p.Group
		}
		say(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", p.Name, p.ID, paths.Tilde(p.Root, home),
			group, memoryCell(p), p.Sessions, openedCell(p.LastOpenedAt), stateCell(p))
	}
	return tw.Flush()
}

func memoryCell(p registry.Project) string {
	if p.MemoryEntries == 0 {
		return "-"
	}
	return plural(p.MemoryEntries, "entry", "entries") + ", " + humanBytes(p.MemoryBytes)
}

func openedCell(ms *int64) string {
	if ms == nil {
		return "never"
	}
	return time.UnixMilli(*ms).Local().Format("2006-01-02 15:04")
}

func stateCell(p registry.Project) string {
	var s []string
	if p.Missing {
		s = append(s, "MISSING")
	}
	if p.DuplicateName {
		// A name from before names were unique: it picks no project.
		s = append(s, "duplicate-name")
	}
	if p.Pinned {
		s = append(s, "pinned")
	}
	if p.Archived {
		s = append(s, "archived")
	}
	if p.Trusted {
		s = append(s, "trusted")
	} else {
		s = append(s, "untrusted")
	}
	return strings.Join(s, ",")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return groupDigits(n) + " " + many
}

func humanBytes(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
}

func (a *app) projectsAdd(args []string) error {
	fs := a.flags("projects add")
	name := fs.String("name", "", "")
	trust := fs.Bool("trust", false, "")
	allowBroad := fs.Bool("allow-broad-root", false, "")
	asNew := fs.Bool("new", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("projects add")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("projects add needs exactly one PATH")
	}
	reg, err := a.registry()
	if err != nil {
		return err
	}
	home := a.env("HOME")
	path := paths.ExpandHome(pos[0], home)
	if !*allowBroad {
		if err := a.confirmBroad(reg, path); err != nil {
			return err
		}
	}
	if !*asNew {
		if err := a.refuseMovedProject(reg, pos[0], path); err != nil {
			return err
		}
	}
	p, created, err := reg.Add(a.ctx, path, *name, *trust)
	if err != nil {
		return err
	}
	if !created {
		// The folder is known: apply what the flags ask for instead of
		// silently dropping them.
		var changed []string
		if n := strings.Join(strings.Fields(*name), " "); n != "" && n != p.Name {
			if err := reg.Rename(a.ctx, p.ID, n); err != nil {
				return err
			}
			changed = append(changed, "renamed to "+n)
			p.Name = n
		}
		if *trust && !p.Trusted {
			if err := reg.SetTrusted(a.ctx, p.ID, true); err != nil {
				return err
			}
			changed = append(changed, "now trusted")
		}
		note := ""
		if len(changed) > 0 {
			note = "; " + strings.Join(changed, ", ")
		}
		say(a.stdout, "already registered: %s (%s) at %s%s\n", p.Name, p.ID, paths.Tilde(p.Root, home), note)
		a.warnSameName(reg, p)
		return nil
	}
	a.warnSameName(reg, p)
	trustNote := "untrusted: nested instructions and the project's .pi settings, skills and prompts stay off until you run pi-tui projects trust " + p.ID
	if p.Trusted {
		trustNote = "trusted"
	}
	say(a.stdout, "added %s (%s) at %s, %s\n", p.Name, p.ID, paths.Tilde(p.Root, home), trustNote)
	return nil
}

// confirmBroad asks a second time before a folder such as / or the home
// folder becomes a project, since the agent's file tools would then reach
// everything below it: on a terminal it asks, otherwise it refuses with
// an error naming --allow-broad-root (exit status 1).
func (a *app) confirmBroad(reg *registry.Registry, path string) error {
	pl, err := a.places()
	if err != nil {
		return err
	}
	err = reg.CheckBroad(a.ctx, path, pl)
	var be *registry.BroadRootError
	if !errors.As(err, &be) {
		return err
	}
	return a.askBroad(be)
}

// askBroad asks whether a folder too broad for a project (be) may be
// used all the same; it returns nil for yes.
func (a *app) askBroad(be *registry.BroadRootError) error {
	if !a.interactive() {
		return fmt.Errorf("%v; to add it anyway, pass --allow-broad-root", be)
	}
	say(a.stderr, "%v.\nAdd it anyway? [y/N] ", be)
	answer, err := a.readLine()
	if err != nil {
		return fmt.Errorf("%s was not added: %w", be.Root, err)
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	return fmt.Errorf("%s was not added", be.Root)
}

// refuseMovedProject refuses to add a folder that looks like a project
// whose folder is missing (its remote and first commit, or its name and
// instruction files, match): adding it would make a second project and
// leave the first one's memory, sessions and trust behind. The sentence
// gives both ways on. typed is the path as the user wrote it.
func (a *app) refuseMovedProject(reg *registry.Registry, typed, path string) error {
	m, ok, err := reg.MatchMissing(a.ctx, path)
	if err != nil || !ok {
		return err
	}
	p, home := m.Project, a.env("HOME")
	ref := p.Name
	if p.DuplicateName || ref != shellWord(ref) {
		ref = p.ID
	}
	return fmt.Errorf("%s looks like project %s (%s), whose folder %s is missing: %s; to move the project here run `pi-tui projects relocate %s %s`, or to add it as another project run `pi-tui projects add %s --new`",
		typed, p.Name, p.ID, paths.Tilde(p.Root, home), m.Reason,
		ref, shellWord(typed), shellWord(typed))
}

// shellWord quotes s for a POSIX shell when it needs it, so a command
// suggested in a message can be pasted as it is.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./~+:@=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// interactive reports whether a person can answer a question: standard
// input and standard error are both terminals.
func (a *app) interactive() bool {
	in, inOK := a.stdin.(*os.File)
	errf, errOK := a.stderr.(*os.File)
	return inOK && errOK && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(errf.Fd()))
}

// readLine reads one answer from standard input. It gives up when the
// context ends (Ctrl-C), since a read from a terminal cannot be
// interrupted.
func (a *app) readLine() (string, error) {
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := bufio.NewReader(a.stdin).ReadString('\n')
		if errors.Is(err, io.EOF) {
			err = nil // no answer is "no"
		}
		ch <- result{line, err}
	}()
	select {
	case r := <-ch:
		return r.line, r.err
	case <-a.ctx.Done():
		return "", a.ctx.Err()
	}
}

// warnSameName notes on stderr when p's name is shared, since the name
// then no longer picks one project.
func (a *app) warnSameName(reg *registry.Registry, p registry.Project) {
	others, err := reg.SameName(a.ctx, p.ID, p.Name)
	if err != nil || len(others) == 0 {
		return
	}
	say(a.stderr, "pi-tui: note: %s also named %q; refer to this one by its id %s or its path\n",
		plural(len(others), "other project is", "other projects are"), p.Name, p.ID)
}

func (a *app) find(query string) (*registry.Registry, registry.Project, error) {
	reg, err := a.registry()
	if err != nil {
		return nil, registry.Project{}, err
	}
	p, err := reg.Find(a.ctx, query)
	return reg, p, err
}

func (a *app) projectsRename(args []string) error {
	fs := a.flags("projects rename")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("projects rename")
	}
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("projects rename needs PROJECT and NAME")
	}
	reg, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	if err := reg.Rename(a.ctx, p.ID, pos[1]); err != nil {
		return err
	}
	if p, err = reg.Get(a.ctx, p.ID); err != nil {
		return err
	}
	say(a.stdout, "renamed to %s (%s)\n", p.Name, p.ID)
	a.warnSameName(reg, p)
	return nil
}

func (a *app) projectsFlag(sub string, args []string) error {
	fs := a.flags("projects " + sub)
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("projects pin")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("projects %s needs exactly one PROJECT", sub)
	}
	reg, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	// Say what happened, including when nothing needed to.
	var did string
	switch sub {
	case "pin", "unpin":
		if p.Pinned == (sub == "pin") {
			did = "was already " + sub + "ned"
		} else {
			err, did = reg.SetPinned(a.ctx, p.ID, sub == "pin"), sub+"ned"
		}
	case "archive", "restore":
		switch {
		case p.Archived == (sub == "archive") && p.Archived:
			did = "was already archived"
		case p.Archived == (sub == "archive"):
			did = "is not archived"
		case sub == "archive":
			err, did = reg.SetArchived(a.ctx, p.ID, true), "archived (hidden from the list; restore brings it back)"
		default:
			err, did = reg.SetArchived(a.ctx, p.ID, false), "restored"
		}
	case "trust", "untrust":
		switch {
		case p.Trusted == (sub == "trust"):
			did = "was already " + sub + "ed"
		case sub == "trust":
			err, did = reg.SetTrusted(a.ctx, p.ID, true), "trusted (in pi's trust.json): nested instructions and the project's .pi settings, skills and prompts will load"
		default:
			err, did = reg.SetTrusted(a.ctx, p.ID, false), "untrusted (in pi's trust.json): only root instructions will load"
		}
	case "remove":
		err = reg.Remove(a.ctx, p.ID)
		did = fmt.Sprintf("removed with its %s and its memory; the folder %s was not touched",
			plural(p.Sessions, "session", "sessions"), paths.Tilde(p.Root, a.env("HOME")))
	}
	if err != nil {
		return err
	}
	say(a.stdout, "%s (%s) %s\n", p.Name, p.ID, did)
	return nil
}

func (a *app) projectsGroup(sub string, args []string) error {
	fs := a.flags("projects " + sub)
	none := new(bool)
	if sub == "group" {
		none = fs.Bool("none", false, "")
	}
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("projects " + sub)
	}
	if err != nil {
		return err
	}
	group := ""
	switch {
	case sub == "ungroup" || *none:
	case len(pos) == 0:
		return usagef("projects group needs NAME and at least one PROJECT (or --none and PROJECTs)")
	default:
		group, pos = pos[0], pos[1:]
		if strings.TrimSpace(group) == "" {
			return usagef("projects group: the group NAME is empty; use --none to take projects out of their group")
		}
	}
	if len(pos) == 0 {
		return usagef("projects %s needs at least one PROJECT", sub)
	}
	reg, err := a.registry()
	if err != nil {
		return err
	}
	// Every PROJECT is found before any is moved: a typo moves nothing.
	var list []registry.Project
	for _, q := range pos {
		p, err := reg.Find(a.ctx, q)
		if err != nil {
			return err
		}
		list = append(list, p)
	}
	for _, p := range list {
		g, err := reg.SetGroup(a.ctx, p.ID, group)
		if err != nil {
			return err
		}
		if g == "" {
			say(a.stdout, "%s (%s) is in no group\n", p.Name, p.ID)
		} else {
			say(a.stdout, "%s (%s) is in the group %s\n", p.Name, p.ID, g)
		}
	}
	return nil
}

func (a *app) projectsRelocate(args []string) error {
	fs := a.flags("projects relocate")
	allowBroad := fs.Bool("allow-broad-root", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("projects relocate")
	}
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("projects relocate needs PROJECT and NEWPATH")
	}
	reg, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	sm, err := a.sessionManager()
	if err != nil {
		return err
	}
	home := a.env("HOME")
	pl := a.placesOrEmpty()
	res, err := reg.Relocate(a.ctx, p.ID, paths.ExpandHome(pos[1], home), registry.RelocateOptions{SessionsDir: sm.Dir, Places: &pl, AllowBroad: *allowBroad})
	for _, pr := range res.Problems {
		say(a.stderr, "pi-tui: warning: session %s\n", pr)
	}
	var broad *registry.BroadRootError
	if errors.As(err, &broad) {
		return fmt.Errorf("%w; relocate there anyway with --allow-broad-root", err)
	}
	if err != nil && res.Project.ID == "" {
		return err
	}
	say(a.stdout, "%s (%s) relocated from %s to %s with %s, its memory, trust, group and pin\n", p.Name, p.ID,
		paths.Tilde(res.OldRoot, home), paths.Tilde(res.Project.Root, home),
		plural(res.Sessions, "session", "sessions"))
	return err
}
