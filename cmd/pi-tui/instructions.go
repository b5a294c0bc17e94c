package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// instructionsCmd prints the instruction chain a runtime would receive for
// a project root or for a target inside it.
func (a *app) instructionsCmd(args []string) error {
	fs := a.flags("instructions")
	project := fs.String("project", "", "")
	rootFlag := fs.String("root", "", "")
	sessionID := fs.String("session", "", "")
	model := fs.String("model", "", "")
	asJSON := fs.Bool("json", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui instructions")
	}
	if err != nil {
		return err
	}
	if (*project != "" && *rootFlag != "") || (*sessionID != "" && (*project != "" || *rootFlag != "")) {
		return usagef("instructions: give one of --project, --root and --session, not both")
	}
	if len(pos) > 1 {
		return usagef("instructions takes at most one TARGET, got %d", len(pos))
	}
	pl, err := a.places()
	if err != nil {
		return err
	}
	var named *instructions.Model
	if *model != "" {
		prov, id, err := pisettings.ParseModel(*model)
		if err != nil {
			return &usageError{msg: "instructions: " + err.Error()}
		}
		named = &instructions.Model{Provider: prov, ID: id}
	}
	var notes []string

	// Which root: the named project, the given directory, or the project
	// holding the working directory (else the working directory itself).
	var root, cwd, from, chosen string
	var proj *registry.Project
	switch {
	case *sessionID != "":
		p, r, note, spec, err := a.sessionRoot(*sessionID)
		if err != nil {
			return err
		}
		root, proj, from, chosen = r, &p, note, spec
	case *project != "":
		_, p, err := a.find(*project)
		if err != nil {
			return err
		}
		root, proj = p.Root, &p
	case *rootFlag != "":
		root = paths.ExpandHome(*rootFlag, a.env("HOME"))
	default:
		cwd, err = os.Getwd()
		if err != nil {
			return fmt.Errorf("instructions: cannot tell the working directory: %w", err)
		}
		p, ok, err := a.projectHolding(cwd)
		if err != nil {
			return err
		}
		if ok {
			root, proj = p.Root, &p
		} else {
			root = cwd
			notes = append(notes, fmt.Sprintf("%s is not inside a registered project; using it as the root", paths.Tilde(cwd, a.env("HOME"))))
		}
	}

	var target string
	var folder *registry.Folder // the folder other than the primary root that holds TARGET
	if len(pos) == 1 {
		target = registry.CanonicalTarget(pos[0], root)
		if proj != nil {
			if f, t, ok := proj.FolderTarget(pos[0], root); ok {
				folder, target = &f, t
			}
		}
		if cwd != "" && folder == nil && !filepath.IsAbs(pos[0]) {
			if real, err := filepath.EvalSymlinks(cwd); err == nil && real != root {
				notes = append(notes, fmt.Sprintf("TARGET %s is relative to the project root %s, not to the working directory",
					pos[0], paths.Tilde(root, a.env("HOME"))))
			}
		}
	}
	var m instructions.Model
	var which string
	if named != nil {
		m, which = *named, modelLine(named.Provider+"/"+named.ID, "--model")
	} else {
		var note string
		m, which, note = a.promptModel(chosen)
		if note != "" {
			notes = append(notes, note)
		}
	}
	r := instructions.New(instructions.Options{AgentDir: pl.AgentDir, Home: a.env("HOME"), Model: m})
	var chain *instructions.Chain
	switch {
	case len(pos) == 0:
		chain, err = r.ResolveRoot(a.ctx, root)
	case folder != nil && !folder.Trusted:
		// A folder's instructions are all nested context: none without trust.
		chain, err = r.ResolveGlobal(a.ctx, instructions.Folder{Root: folder.Path, Name: folder.Name}, target)
		notes = append(notes, fmt.Sprintf("folder %s of project %s is untrusted: its instruction files are not delivered until it is trusted (pi-tui projects folders trust %s %s); showing the global ones",
			folder.Name, proj.Name, proj.ID, shellWord(folder.Name)))
	case folder != nil:
		chain, err = r.ResolveInFolder(a.ctx, instructions.Folder{Root: folder.Path, Name: folder.Name}, target)
		notes = append(notes, fmt.Sprintf("%s is in folder %s (%s) of project %s: this is that folder's own chain, delivered when a tool first reaches it; the primary root's stays in the system prompt",
			pos[0], folder.Name, paths.Tilde(folder.Path, a.env("HOME")), proj.Name))
	case proj != nil && !proj.Trusted:
		// What a runtime gets: nested instructions need trust.
		chain, err = r.ResolveRoot(a.ctx, root)
		notes = append(notes, fmt.Sprintf("project %s is untrusted: nested instructions are not loaded until it is trusted (pi-tui projects trust %s); showing the root chain", proj.Name, proj.ID))
	default:
		chain, err = r.ResolveTarget(a.ctx, root, target)
	}
	if err != nil {
		return err
	}
	chain.Warnings = append(chain.Warnings, notes...)

	if *asJSON {
		return writeJSON(a.stdout, chain, false)
	}
	if from != "" {
		say(a.stdout, "%s\n", upperFirst(from))
	}
	if which != "" {
		say(a.stdout, "%s\n", which)
	}
	if from != "" || which != "" {
		writeText(a.stdout, "\n")
	}
	return a.printChain(chain)
}

// sessionRoot is the root a session's chain is resolved from: its
// worktree when it has one (the branch's own instruction files), else its
// project's root. note names it; spec is the model (and thinking level)
// the session chose last, which a prompt naming no model keeps.
func (a *app) sessionRoot(id string) (_ registry.Project, root, note, spec string, _ error) {
	sm, err := a.sessionManager()
	if err != nil {
		return registry.Project{}, "", "", "", err
	}
	s, err := sm.Open(a.ctx, id)
	if err != nil {
		return registry.Project{}, "", "", "", err
	}
	defer s.Close()
	spec = provider.WithThinking(s.Chosen())
	reg, err := a.registry()
	if err != nil {
		return registry.Project{}, "", "", "", err
	}
	p, err := reg.Get(a.ctx, s.ProjectID())
	if err != nil {
		return registry.Project{}, "", "", "", fmt.Errorf("session %s belongs to no registered project: %w", id, err)
	}
	home := a.env("HOME")
	svc, err := a.worktrees()
	if err != nil {
		return registry.Project{}, "", "", "", err
	}
	w, bound, err := svc.Lookup(a.ctx, s)
	if err != nil {
		return registry.Project{}, "", "", "", err
	}
	if bound {
		return p, w.Root, fmt.Sprintf("chain from the worktree of session %s (branch %s): %s", s.ID(), w.Branch, paths.Tilde(w.Root, home)), spec, nil
	}
	return p, p.Root, fmt.Sprintf("chain from the root of project %s: %s", p.Name, paths.Tilde(p.Root, home)), spec, nil
}

// promptModel is the model whose provider files apply when no --model is
// given: the one a prompt would run (spec: the session's own choice, or
// "" for settings.json's default, else the first model with a key), found
// by the resolution the status bar and Settings use (runtimes.Manager.Model,
// ADR 0052), so the chain shown is the chain a prompt gets. which says
// the model and where it comes from, in one line; note, when no model's
// provider files can apply, says why.
func (a *app) promptModel(spec string) (m instructions.Model, which, note string) {
	const left = "provider files (CLAUDE.md, CODEX.md, GEMINI.md) are not included"
	h, err := a.openHost()
	if err != nil {
		return m, "", fmt.Sprintf("no model given (--model PROVIDER/ID), and the one a prompt would use cannot be told (%v): %s", err, left)
	}
	c, err := h.Runtimes.Model(a.ctx, spec)
	switch {
	case err != nil:
		return m, "", fmt.Sprintf("no model given (--model PROVIDER/ID), and a prompt would find none (%v): %s", err, left)
	case c.Model.Provider == "":
		// The pi engine with a model only pi knows: pi picks it, and a
		// prompt's chain has no provider file either.
		return m, "", "no model given (--model PROVIDER/ID), and pi would pick its own model: " + left
	}
	var why []string
	if o := c.Origin(); o != "" {
		why = append(why, o)
	} else if spec != "" {
		why = append(why, "this session")
	}
	switch {
	case c.ByPi:
		why = append(why, "run by pi")
	case !c.Usable:
		why = append(why, "no key: a prompt fails until one is set")
	}
	return instructions.Model{Provider: c.Model.Provider, ID: c.Model.ID}, modelLine(c.Model.String(), strings.Join(why, "; ")), ""
}

// modelLine says which model's provider files the chain has and why
// that model: "Model anthropic/claude-sonnet-4-5 (first in models.json),
// the one a prompt would use".
func modelLine(model, why string) string {
	line := "Model " + model
	if why != "" {
		line += " (" + why + ")"
	}
	if why == "--model" {
		return line
	}
	return line + ", the one a prompt would use"
}

// projectHolding finds the registered project whose root holds dir (the
// deepest one when projects nest).
func (a *app) projectHolding(dir string) (registry.Project, bool, error) {
	reg, err := a.registry()
	if err != nil {
		return registry.Project{}, false, err
	}
	return holding(a.ctx, reg, dir)
}

// holding finds the registered project with the deepest folder that is
// dir or one of its parents: its primary root or any other of its
// folders (ADR 0085), archived projects included. It looks each of dir's
// canonical ancestors up by path (core/registry's Holding): a handful of
// indexed reads where listing every project (2,000 of them, each
// stat'ed) held the terminal UI's first frame up by tens of milliseconds.
func holding(ctx context.Context, reg *registry.Registry, dir string) (registry.Project, bool, error) {
	p, _, found, err := reg.Holding(ctx, dir)
	return p, found, err
}

// printChain writes the chain for a person: the section exactly as a
// runtime receives it, then the sources, skipped candidates and warnings.
// Labels and paths are quoted (safetext.Label) and control characters in
// file text are shown as symbols (safetext.Visible): a repository's file
// and folder names and contents must neither forge lines here nor drive
// the terminal. --json gives the raw values.
func (a *app) printChain(c *instructions.Chain) error {
	home := a.env("HOME")
	if c.Text == "" {
		say(a.stdout, "No instruction files apply to %s.\n", safetext.Label(paths.Tilde(c.Target, home)))
	} else {
		writeText(a.stdout, safetext.Visible(c.Text))
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	if len(c.Sources) > 0 {
		// A row counts what the total counts: the text the agent gets.
		// The file's size, which differs by the white space around the
		// text (a final newline) or by what was cut, follows it.
		say(tw, "\nSources (%s of %s bytes used, outer first; %s):\n", groupDigits(c.UsedBytes), groupDigits(c.BudgetBytes), countedBytes)
		for _, s := range c.Sources {
			say(tw, "  %s\t%s\t%s\t%s\n", safetext.Label(s.Label), s.Kind, plural(s.ShownBytes, "byte", "bytes"), sourceState(s))
		}
	}
	if len(c.Skipped) > 0 {
		writeText(tw, "\nSkipped:\n")
		for _, s := range c.Skipped {
			say(tw, "  %s\t%s\n", safetext.Label(displayPath(s.Path, c.Root, home)), s.Reason)
		}
	}
	if len(c.Warnings) > 0 {
		writeText(tw, "\nWarnings:\n")
		for _, w := range c.Warnings {
			say(tw, "  %s\n", w)
		}
	}
	return tw.Flush()
}

// countedBytes says what a chain's bytes are, where they are shown.
const countedBytes = "a file counts the text the agent gets, without the white space around it"

// sourceState says whether a source went in whole or cut, and the file's
// size when it is not what is counted (a final newline, a cut).
func sourceState(s instructions.Source) string {
	state := "whole"
	if s.Truncated {
		state = "cut"
	}
	if s.Bytes != s.ShownBytes {
		state += " (the file: " + plural(s.Bytes, "byte", "bytes") + ")"
	}
	return state
}

// displayPath writes a path relative to the root when inside it, else with ~.
func displayPath(p, root, home string) string {
	if rel, err := filepath.Rel(root, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return paths.Tilde(p, home)
}
