package main

import (
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
)

// projectsFolders is `pi-tui projects folders …`: a project's folders
// (ADR 0085), listed, added, removed, trusted and relocated.
func (a *app) projectsFolders(args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "add":
			return a.foldersAdd(args[1:])
		case "remove":
			return a.foldersRemove(args[1:])
		case "trust", "untrust":
			return a.foldersTrust(args[0], args[1:])
		case "relocate":
			return a.foldersRelocate(args[1:])
		}
	}
	return a.foldersList(args)
}

func (a *app) foldersList(args []string) error {
	fs := a.flags("projects folders")
	asJSON := fs.Bool("json", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("projects folders")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("projects folders needs exactly one PROJECT (or a subcommand: add, remove, trust, untrust, relocate)")
	}
	_, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, p.Folders, false)
	}
	home := a.env("HOME")
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	writeText(tw, "NAME\tPATH\tTRUST\tSTATE\n")
	for _, f := range p.Folders {
		say(tw, "%s\t%s\t%s\t%s\n", f.Name, paths.Tilde(f.Path, home), trustWord(f.Trusted), folderState(f))
	}
	return tw.Flush()
}

func trustWord(trusted bool) string {
	if trusted {
		return "trusted"
	}
	return "untrusted"
}

// folderState says what is particular about a folder: the primary root,
// a folder gone from disk.
func folderState(f registry.Folder) string {
	switch {
	case f.Primary && f.Missing:
		return "primary,MISSING"
	case f.Primary:
		return "primary"
	case f.Missing:
		return "MISSING"
	}
	return "-"
}

func (a *app) foldersAdd(args []string) error {
	fs := a.flags("projects folders add")
	name := fs.String("name", "", "")
	trust := fs.Bool("trust", false, "")
	allowBroad := fs.Bool("allow-broad-root", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("projects folders add")
	}
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("projects folders add needs PROJECT and PATH")
	}
	reg, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	home := a.env("HOME")
	path := paths.ExpandHome(pos[1], home)
	pl := a.placesOrEmpty()
	opts := registry.FolderOptions{Places: &pl, AllowBroad: *allowBroad}
	f, err := reg.AddFolder(a.ctx, p.ID, path, *name, *trust, opts)
	var be *registry.BroadRootError
	if errors.As(err, &be) {
		if err := a.askBroad(be); err != nil {
			return err
		}
		opts.AllowBroad = true
		f, err = reg.AddFolder(a.ctx, p.ID, path, *name, *trust, opts)
	}
	if err != nil {
		return err
	}
	note := "untrusted: its instructions are not delivered until you run pi-tui projects folders trust " + p.ID + " " + shellWord(f.Name)
	if f.Trusted {
		note = "trusted"
	}
	say(a.stdout, "added folder %s (%s) to %s (%s), %s\n", f.Name, paths.Tilde(f.Path, home), p.Name, p.ID, note)
	return nil
}

func (a *app) foldersRemove(args []string) error {
	fs := a.flags("projects folders remove")
	force := fs.Bool("force", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("projects folders remove")
	}
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("projects folders remove needs PROJECT and FOLDER (its path or name)")
	}
	reg, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	// The sessions a folder is checked against are the ones on disk now.
	a.reconcileSessions()
	query := paths.ExpandHome(pos[1], a.env("HOME"))
	var sessions []string
	if *force {
		sessions, _ = reg.FolderSessions(a.ctx, p.ID, query)
	}
	f, err := reg.RemoveFolder(a.ctx, p.ID, query, *force)
	if err != nil {
		return err
	}
	kept := ""
	if len(sessions) > 0 {
		kept = fmt.Sprintf("; the %s that worked in it stay with the project", plural(len(sessions), "session", "sessions"))
	}
	say(a.stdout, "removed folder %s (%s) from %s (%s); the folder on disk was not touched%s\n",
		f.Name, paths.Tilde(f.Path, a.env("HOME")), p.Name, p.ID, kept)
	return nil
}

func (a *app) foldersTrust(sub string, args []string) error {
	fs := a.flags("projects folders " + sub)
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("projects folders " + sub)
	}
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("projects folders %s needs PROJECT and FOLDER (its path or name)", sub)
	}
	reg, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	query := paths.ExpandHome(pos[1], a.env("HOME"))
	f, err := reg.FindFolder(p, query)
	if err != nil {
		return err
	}
	want := sub == "trust"
	did := "was already " + sub + "ed"
	if f.Trusted != want {
		if f, err = reg.SetFolderTrusted(a.ctx, p.ID, query, want); err != nil {
			return err
		}
		did = "untrusted (in pi's trust.json): its instructions are no longer delivered"
		if f.Trusted {
			did = "trusted (in pi's trust.json): its instructions are delivered"
		}
	}
	say(a.stdout, "folder %s of %s (%s) %s\n", f.Name, p.Name, p.ID, did)
	return nil
}

func (a *app) foldersRelocate(args []string) error {
	fs := a.flags("projects folders relocate")
	allowBroad := fs.Bool("allow-broad-root", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("projects folders relocate")
	}
	if err != nil {
		return err
	}
	if len(pos) != 3 {
		return usagef("projects folders relocate needs PROJECT, FOLDER and NEWPATH")
	}
	reg, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	home := a.env("HOME")
	pl := a.placesOrEmpty()
	f, err := reg.RelocateFolder(a.ctx, p.ID, paths.ExpandHome(pos[1], home), paths.ExpandHome(pos[2], home),
		registry.FolderOptions{Places: &pl, AllowBroad: *allowBroad})
	var be *registry.BroadRootError
	if errors.As(err, &be) {
		return fmt.Errorf("%w; relocate there anyway with --allow-broad-root", err)
	}
	if err != nil {
		return err
	}
	say(a.stdout, "folder %s of %s (%s) now at %s, with its trust\n", f.Name, p.Name, p.ID, paths.Tilde(f.Path, home))
	return nil
}
