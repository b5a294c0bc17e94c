package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/core/sessionexport"
	"github.com/pi-tui/pi-tui/core/sessionimport"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// sessionsImport is `sessions import [--from S] [--project P] [--dry-run]
// [--json]`: other agents' sessions into pi's session files (ADR 0075).
func (a *app) sessionsImport(args []string) error {
	fs := a.flags("sessions import")
	from := fs.String("from", "all", "")
	project := fs.String("project", "", "")
	dry := fs.Bool("dry-run", false, "")
	asJSON := fs.Bool("json", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("sessions import")
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("sessions import takes no arguments (got %q)", pos[0])
	}
	srcs, ok := sessionimport.ParseSource(*from)
	if !ok {
		return usagef("sessions import: --from is claude, codex, opencode or all, not %q", *from)
	}
	pid, err := a.scopeID(*project)
	if err != nil {
		return err
	}
	h, err := a.openHost()
	if err != nil {
		return err
	}
	opts := sessionimport.Options{Sources: srcs, Only: pid, DryRun: *dry}
	bar := newProgressBar(a.stderr)
	if bar != nil {
		opts.Progress = bar.set
	}
	res, err := h.ImportSessions(a.ctx, sessionimport.DefaultLocations(a.env), opts)
	if bar != nil {
		bar.clear()
	}
	if err != nil {
		return err
	}
	if *asJSON {
		if werr := writeJSON(a.stdout, res, true); werr != nil {
			return werr
		}
	} else {
		a.printImport(res, *dry)
	}
	for _, p := range res.Problems {
		say(a.stderr, "pi-tui: skipped %s\n", p.String())
	}
	if len(res.Problems) > 0 {
		return &codeError{code: 1, msg: fmt.Sprintf("%d lines, files or databases could not be read (named above); everything else was imported", len(res.Problems))}
	}
	return nil
}

func (a *app) printImport(res sessionimport.Result, dry bool) {
	appended := 0
	for _, s := range res.Sessions {
		verb := "new"
		if s.Appended {
			verb, appended = "added to", appended+1
		}
		title := s.Title
		if title == "" {
			title = s.SourceID
		}
		say(a.stdout, "%-11s %-8s %s  %s  %s (%d entries)\n", s.Source.Name(), verb, s.Project, s.ID, firstLine(title), s.Entries)
	}
	would := ""
	if dry {
		would = "would be "
	}
	say(a.stdout, "%d sessions found: %d %simported (%d of them %sadded to), %d unchanged since the last import.\n",
		res.Found, len(res.Sessions), would, appended, would, res.Unchanged)
	if dry && len(res.Sessions) > 0 {
		writeText(a.stdout, "Nothing was written (--dry-run).\n")
	}
	if len(res.Unmatched) > 0 {
		writeText(a.stdout, "Sessions of folders no project holds; add the folder as a project, then import again:\n")
		for _, u := range res.Unmatched {
			say(a.stdout, "  %d in %s: pi-tui projects add %s\n", u.Sessions, u.Cwd, shellWord(u.Cwd))
		}
	}
}

// progressBar draws "importing 120/1000 [=====     ]" on one line of a
// terminal; it is nil when the output is not one (a script or a pipe gets
// no bar).
type progressBar struct {
	w    io.Writer
	last int
}

func newProgressBar(w io.Writer) *progressBar {
	if !isTerminal(w) {
		return nil
	}
	return &progressBar{w: w, last: -1}
}

func (b *progressBar) set(done, total int) {
	if total == 0 {
		return
	}
	const width = 30
	filled := done * width / total
	pct := done * 100 / total
	if pct == b.last && done != total {
		return
	}
	b.last = pct
	// pi-tui's own line: numbers and the bar's own characters.
	writeText(b.w, fmt.Sprintf("\r\x1b[Kimporting %d/%d [%s%s] %d%%", done, total, strings.Repeat("=", filled), strings.Repeat(" ", width-filled), pct))
}

func (b *progressBar) clear() { writeText(b.w, "\r\x1b[K") }

// sessionsExport is `sessions export ID [--format F] [-o FILE]
// [--all-branches] [--project P]`.
func (a *app) sessionsExport(args []string) error {
	fs := a.flags("sessions export")
	format := fs.String("format", "", "")
	out := fs.String("o", "", "")
	all := fs.Bool("all-branches", false, "")
	project := fs.String("project", "", "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("sessions export")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("sessions export needs exactly one session ID")
	}
	f := sessionexport.HTML
	switch {
	case *format != "":
		var ok bool
		if f, ok = sessionexport.ParseFormat(*format); !ok {
			return usagef("sessions export: --format is html, md or jsonl, not %q", *format)
		}
	case *out != "":
		if g, ok := sessionexport.ParseFormat(strings.TrimPrefix(filepath.Ext(*out), ".")); ok {
			f = g // the file's extension says
		}
	}
	pid, err := a.scopeID(*project)
	if err != nil {
		return err
	}
	h, err := a.openHost()
	if err != nil {
		return err
	}
	if *out == "" || *out == "-" {
		// Standard output is read, or piped on to be: what a session
		// holds is made visible there (JSON keeps its values, the other
		// formats show controls as escapes); -o FILE gets the bytes.
		var b bytes.Buffer
		if _, err := h.ExportSession(a.ctx, pos[0], pid, &b, sessionexport.Options{Format: f, AllBranches: *all}); err != nil {
			return withProjectHint(err)
		}
		if f == sessionexport.JSONL {
			return writeJSONText(a.stdout, b.Bytes())
		}
		return writeText(a.stdout, safetext.Visible(b.String()))
	}
	// Written beside the target and renamed over it: a failed export
	// leaves no half file, and an existing file only once the new one is
	// whole.
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".pi-tui-export-*")
	if err != nil {
		return fmt.Errorf("export to %s: %w", *out, err)
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	id, err := h.ExportSession(a.ctx, pos[0], pid, bw, sessionexport.Options{Format: f, AllBranches: *all})
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return withProjectHint(err)
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return fmt.Errorf("export to %s: %w", *out, err)
	}
	say(a.stdout, "Exported session %s to %s (%s).\n", id, *out, string(f))
	return nil
}
