package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/term"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/runtime"
	"github.com/pi-tui/pi-tui/ui"
)

// tui opens the terminal UI. Without a terminal on both ends (a pipe, a
// script, CI) it prints the help instead and says why.
func (a *app) tui() error {
	in, inOK := a.stdin.(*os.File)
	out, outOK := a.stdout.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		fmt.Fprint(a.stdout, helpText)
		fmt.Fprintln(a.stderr, "pi-tui: not a terminal, so the UI did not open; the commands above work anywhere")
		return nil
	}
	pl, err := a.places()
	if err != nil {
		return err
	}
	h, err := host.Open(a.ctx, pl)
	if err != nil {
		return err
	}
	defer h.Close()
	r := lipgloss.NewRenderer(out)
	if a.env("NO_COLOR") != "" {
		r.SetColorProfile(termenv.Ascii)
	}
	rts, err := runtime.New(runtime.Options{Host: h, Env: a.env})
	if err != nil {
		return err
	}
	defer rts.Close()
	m := ui.New(ui.Options{Host: h, Renderer: r, Env: a.env, Runtimes: rts})
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(a.ctx), tea.WithInput(in), tea.WithOutput(out))
	_, err = p.Run()
	m.Close()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrInterrupted) {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
