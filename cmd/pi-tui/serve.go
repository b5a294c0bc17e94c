package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/internal/sshserver"
	"github.com/pi-tui/pi-tui/ui"
)

// serveCmd serves the terminal UI over SSH until the context is cancelled
// (SIGINT/SIGTERM). Every session gets its own program and renderer; all
// share one host core and one runtime manager, so two people editing the
// same file or memory meet the app's conflict handling.
func (a *app) serveCmd(args []string) error {
	fs := a.flags("serve")
	listen := fs.String("listen", sshserver.DefaultListen, "")
	keys := fs.String("authorized-keys", "", "")
	hostKey := fs.String("host-key", "", "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui serve")
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("serve takes no arguments, got %q", pos[0])
	}
	pl, err := a.places()
	if err != nil {
		return err
	}
	home := a.env("HOME")
	if *keys == "" {
		if home == "" {
			return errors.New("HOME is not set: pass --authorized-keys FILE")
		}
		*keys = filepath.Join(home, ".ssh", "authorized_keys")
	}
	*keys = paths.ExpandHome(*keys, home)
	if *hostKey == "" {
		*hostKey = filepath.Join(pl.DataDir, "ssh_host_ed25519")
	}
	*hostKey = paths.ExpandHome(*hostKey, home)
	if err := os.MkdirAll(pl.DataDir, 0o700); err != nil {
		return fmt.Errorf("create data dir %s: %w", pl.DataDir, err)
	}
	logPath := filepath.Join(pl.DataDir, "ssh.log")
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open connection log %s: %w", logPath, err)
	}
	defer logFile.Close()

	var h *host.Host
	srv, err := sshserver.New(sshserver.Config{
		Listen:             *listen,
		HostKeyPath:        *hostKey,
		AuthorizedKeysPath: *keys,
		Log:                logFile,
		Warn:               a.stderr,
		NewModel: func(sess ssh.Session, r *lipgloss.Renderer, exec sshserver.ExecFunc) tea.Model {
			// The program lives as long as its client's session.
			return ui.New(ui.Options{Host: h, Context: sess.Context(), Renderer: r, Env: a.env, Exec: exec})
		},
	})
	if err != nil {
		return err
	}
	// Opened once, after the checks above, and shared by every session
	// (closed when the command ends, after the sessions).
	if h, err = a.openHost(); err != nil {
		return err
	}
	say(a.stdout, "pi-tui serve: listening on %s · host key %s · %s · log %s\n",
		srv.Addr(), srv.HostKeyFingerprint(), plural(srv.AuthorizedKeys(), "authorized key", "authorized keys"), logPath)
	if err := srv.Serve(a.ctx); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
