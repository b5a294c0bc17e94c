package chat

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/services"
	"github.com/pi-tui/pi-tui/core/sessionexport"
	"github.com/pi-tui/pi-tui/core/sessionimport"
	"github.com/pi-tui/pi-tui/ui/common"
)

// /export [FILE] writes the open session to share (ADR 0076): a
// self-contained HTML page by default, Markdown or pi's JSONL when FILE
// ends in .md or .jsonl. FILE is relative to the project folder, where pi's
// own /export puts its file too; without one the page is named after the
// session.

type exportedMsg struct {
	path string
	err  error
}

// exportTarget works out the file and format /export writes.
func exportTarget(root, sid, arg string) (string, sessionexport.Format) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		short := sid
		if len(short) > 8 {
			short = short[:8]
		}
		arg = "pi-session-" + short + ".html"
	}
	if !filepath.IsAbs(arg) {
		arg = filepath.Join(root, arg)
	}
	f, ok := sessionexport.ParseFormat(strings.TrimPrefix(filepath.Ext(arg), "."))
	if !ok {
		f = sessionexport.HTML
	}
	return arg, f
}

// export writes the open session in a command (/export).
func (m *Model) export(arg string) tea.Cmd {
	if m.sid == "" || m.project == nil {
		return common.Failure(errors.New("/export needs a session: send a message first"))
	}
	return m.ExportSession(m.sid, arg)
}

// ExportSession writes session sid of the project in a command, never over
// an existing file (the session list's export key, /export).
func (m *Model) ExportSession(sid, arg string) tea.Cmd {
	if m.project == nil {
		return nil
	}
	path, format := exportTarget(m.project.Root, sid, arg)
	svc, pid, ctx := m.d.Host.Services, m.project.ID, m.ctx
	return func() tea.Msg {
		return exportedMsg{path: path, err: exportFile(ctx, svc, sid, pid, path, format)}
	}
}

// exportFile writes the export to a new file: an existing one is left
// as it is, and a failed export leaves no file.
func exportFile(ctx context.Context, svc *services.Services, sid, pid, path string, format sessionexport.Format) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; name another file: /export FILE", path)
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	bw := bufio.NewWriter(f)
	_, err = svc.ExportSession(ctx, sid, pid, bw, sessionexport.Options{Format: format})
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("export to %s: %w", path, err)
	}
	return nil
}

// updateExport handles the messages of this file.
func (m *Model) updateExport(msg tea.Msg) (tea.Cmd, bool) {
	if im, ok := msg.(importedMsg); ok {
		if im.err != nil {
			return common.Failure(im.err), true
		}
		cmds := []tea.Cmd{common.Notice("%s", importNotice(im.res)), func() tea.Msg { return common.ProjectsChangedMsg{} }}
		if m.tab.List != nil {
			cmds = append(cmds, m.tab.List.Reload())
		}
		return tea.Batch(cmds...), true
	}
	done, ok := msg.(exportedMsg)
	if !ok {
		return nil, false
	}
	if done.err != nil {
		return common.Failure(done.err), true
	}
	return common.Notice("exported to %s", common.VisibleLine(done.path)), true
}

type importedMsg struct {
	res sessionimport.Result
	err error
}

// ImportSessions imports the sessions of Claude Code, Codex and opencode
// into the registered projects in a command (the session list's import
// key, the palette); the lists read again when it is done, and a notice
// sums it up. The command line's `pi-tui sessions import` says more.
func (m *Model) ImportSessions() tea.Cmd {
	svc, env, ctx := m.d.Host.Services, m.d.Env, m.ctx
	if env == nil {
		env = func(string) string { return "" }
	}
	loc := sessionimport.DefaultLocations(func(k string) string {
		if k == "HOME" && env(k) == "" {
			return svc.Places.Home
		}
		return env(k)
	})
	return tea.Batch(common.Notice("importing sessions from Claude Code, Codex and opencode…"), func() tea.Msg {
		res, err := svc.ImportSessions(ctx, loc, sessionimport.Options{})
		return importedMsg{res: res, err: err}
	})
}

// importNotice sums an import up in one line.
func importNotice(res sessionimport.Result) string {
	appended := 0
	for _, s := range res.Sessions {
		if s.Appended {
			appended++
		}
	}
	msg := fmt.Sprintf("imported %d sessions (%d added to), %d unchanged", len(res.Sessions)-appended, appended, res.Unchanged)
	if n := len(res.Unmatched); n > 0 {
		msg += fmt.Sprintf("; %d folders are no project's (pi-tui sessions import lists them)", n)
	}
	if n := len(res.Problems); n > 0 {
		msg += fmt.Sprintf("; %d lines or files skipped (pi-tui sessions import names them)", n)
	}
	return msg
}
