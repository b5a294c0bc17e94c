package runtimes

import (
	"context"
	"errors"
	"strings"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// Approval routing: a tool call that needs consent goes to the programs
// showing its session (the broker), else to Options.Approve, unless the
// project's rules or an "allow for this session" cover it.

// approve asks about a session's tool call: every program showing the
// session sees the question, the first answer counts (events.Broker.Ask).
// With no program showing it, Options.Approve decides (headless runs).
// A call the project's "always" rules cover runs without asking, headless
// too (ADR 0028); "allow for this session" is remembered here, per tool,
// for every program. Neither covers a call that asks a reason of its own
// (a write under .git/, or to the rules' copy), which asks every time.
func (m *Manager) approve(sessionID string, spec Spec) toolpolicy.Approver {
	rules := m.opts.Host.Approvals
	root, projectRoot, folders := spec.Root, spec.ProjectRoot, spec.confined()
	return func(ctx context.Context, req events.Approval) (bool, error) {
		key := sessionID + "\x00" + req.Tool
		if req.Reason == "" {
			if covered(ctx, rules, folders, projectRoot, req) {
				return true, nil
			}
			m.mu.Lock()
			ok := m.allowed[key]
			m.mu.Unlock()
			if ok {
				return true, nil
			}
		}
		ans, err := m.opts.Host.Events.Ask(ctx, sessionID, root, projectRoot, req)
		switch {
		case errors.Is(err, events.ErrUnattended):
			if m.opts.Approve == nil {
				return false, nil
			}
			return m.opts.Approve(ctx, req)
		case err != nil:
			return false, err
		case !ans.Allow && ans.Reason != "":
			return false, &toolpolicy.DeniedError{Reason: ans.Reason}
		}
		if ans.Allow && ans.ForSession && req.Reason == "" {
			m.mu.Lock()
			m.allowed[key] = true
			m.mu.Unlock()
		}
		return ans.Allow, nil
	}
}

// covered reports whether one of the project's rules allows the call. A
// file is matched by its canonical path inside the root the session works
// in (a worktree's, in a worktree session), so a link or a ../ cannot make
// a rule for docs/** cover another file; the rules are the project's. A
// file of another folder of the project is matched as NAME:path (a rule
// web:src/** covers it, src/** does not). Rules that cannot be read allow
// nothing.
func covered(ctx context.Context, rules *approvals.Store, folders confine.Folders, projectRoot string, req events.Approval) bool {
	subject := req.Command
	switch req.Tool {
	case approvals.ToolBash:
	case approvals.ToolWrite, approvals.ToolEdit:
		pl, err := folders.Resolve(req.Path)
		if err != nil {
			return false
		}
		rel := pl.Rel()
		if rel == "." || strings.HasPrefix(rel, "../") {
			return false
		}
		subject = rel
		if pl.Index > 0 {
			subject = pl.Folder.Name + ":" + rel
		} else if first, _, _ := strings.Cut(rel, "/"); len(folders) > 1 && strings.Contains(first, ":") {
			// In a project of several folders, a file of the root under a
			// folder named like web:src must not pass for web's src:
			// written ./web:src/x, no NAME: rule covers it.
			subject = "./" + rel
		}
	default:
		return false
	}
	list, err := rules.Rules(ctx, projectRoot)
	if err != nil {
		return false
	}
	_, ok := approvals.Covers(forSubject(list, req.Tool, subject, folders), req.Tool, subject)
	return ok
}

// forSubject keeps the rules that may cover a file subject: a file of
// another folder (NAME:path) only by a rule that names that folder, so
// the root's ** or *.md, written before the folder was added, do not
// approve writes there too. bash rules are kept as they are.
func forSubject(list []approvals.Rule, tool, subject string, folders confine.Folders) []approvals.Rule {
	if tool == approvals.ToolBash {
		return list
	}
	name, _, named := strings.Cut(subject, ":")
	if !named || strings.HasPrefix(subject, "./") || len(folders) < 2 {
		return list
	}
	var out []approvals.Rule
	for _, r := range list {
		if strings.HasPrefix(r.Pattern, name+":") {
			out = append(out, r)
		}
	}
	return out
}
