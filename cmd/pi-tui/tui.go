package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/term"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/ui"
	"github.com/pi-tui/pi-tui/ui/projects"
)

// tuiStart is where the terminal UI opens: `pi-tui [-c] [PATH]`.
type tuiStart struct {
	path string // as typed; "" is the working directory
	cont bool   // -c: continue the latest session there
}

// tui opens the terminal UI. Without a terminal on both ends (a pipe, a
// script, CI) it prints the help instead and says why.
func (a *app) tui(start tuiStart) error {
	dir, err := a.startDir(start.path)
	if err != nil {
		return err
	}
	in, inOK := a.stdin.(*os.File)
	out, outOK := a.stdout.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		writeHelp(a.stdout)
		writeText(a.stderr, "pi-tui: not a terminal, so the UI did not open; the commands above work anywhere\n")
		return nil
	}
	h, err := a.openHost()
	if err != nil {
		return err
	}
	// The Projects list, which the first frame shows, is read from here
	// on, beside the background question and the program's start.
	pre := projects.StartPreload(a.ctx, h)
	at, err := a.startAt(h, dir, start)
	if err != nil {
		return err
	}
	r := lipgloss.NewRenderer(out)
	if a.env("NO_COLOR") != "" {
		r.SetColorProfile(termenv.Ascii)
	}
	// The background is asked here, once and bounded, before the program
	// owns the terminal; left to itself the renderer would ask on first
	// use and wait up to 5 s. Without colours there is nothing to ask.
	dark := true
	if r.ColorProfile() != termenv.Ascii {
		dark = darkBackground(a.ctx, in, out, a.env, backgroundBound)
	}
	r.SetHasDarkBackground(dark)
	m := ui.New(ui.Options{Host: h, Context: a.ctx, Renderer: r, Env: a.env, Start: at, Preload: pre})
	// main turns SIGINT and SIGTERM into the end of a.ctx, which ends the
	// program; bubbletea's own handler would race it for the same signal
	// and, losing, block the program's shutdown until main gave up.
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(a.ctx), tea.WithInput(in), tea.WithOutput(out),
		tea.WithoutSignalHandler())
	_, err = p.Run()
	m.Close()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrInterrupted) {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}

// startDir is the folder the UI opens on: PATH, which must be a folder
// (a mistake is bad usage, exit 2), or the working directory.
func (a *app) startDir(path string) (string, error) {
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", nil // nowhere in particular: the Projects tab
		}
		return wd, nil
	}
	abs, err := filepath.Abs(paths.ExpandHome(path, a.env("HOME")))
	if err != nil {
		return "", usagef("%s: %v", path, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", usagef("no such folder: %s", path)
	case err != nil:
		return "", usagef("cannot open %s: %v", path, err)
	case !fi.IsDir():
		return "", usagef("%s is a file; pi-tui opens a folder", path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// startAt says where in the UI to start: on the registered project that
// holds dir, or, for a PATH that no project holds, in the dialog that
// adds it (trust is asked there, never assumed). The working directory
// outside every project opens the Projects tab, as always.
func (a *app) startAt(h *host.Host, dir string, start tuiStart) (ui.Start, error) {
	if dir == "" {
		return ui.Start{}, nil
	}
	p, found, err := holding(a.ctx, h.Projects, dir)
	if err != nil {
		return ui.Start{}, err
	}
	switch {
	case found:
		return ui.Start{Project: &p, Continue: start.cont}, nil
	case start.path != "":
		return ui.Start{AddPath: dir}, nil
	case start.cont:
		return ui.Start{}, usagef("-c continues the latest session of the project here, and %s is in no registered project; add it with: pi-tui projects add %s",
			paths.Tilde(dir, a.env("HOME")), dir)
	}
	return ui.Start{}, nil
}

// looksLikePath tells a folder from a mistyped command: `pi-tui .`,
// `pi-tui ~/src/x`, `pi-tui ../x`.
func looksLikePath(s string) bool {
	return s == "." || s == ".." || s == "~" || strings.ContainsRune(s, filepath.Separator) || strings.HasPrefix(s, "~")
}

func exists(s string) bool {
	_, err := os.Stat(s)
	return err == nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
