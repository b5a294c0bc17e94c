package toolpolicy

// The rules the pi bridge's host (core/bridge) decides with, shared with
// the built-in engine (core/agent) so that a tool call is judged the same
// whichever engine runs it.

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/events"
)

// NeedsApproval says whether a call of tool on target (its path argument,
// "" for none) needs the user's approval under permission and, when it
// asks for more than the permission mode would, why. Writes and edits of
// files that run on use (.git/, hooks, .envrc, .pi/extensions, …) ask in
// every mode but full-auto; the decision is made on the canonical path,
// returned as canon. A tool pi-tui does not know (another extension's, an
// MCP server's) is treated as one that runs programs: asked in "ask" and
// "auto-edits". The built-in engine and the pi bridge both decide here.
func NeedsApproval(root, permission, tool, target string) (need bool, reason, canon string) {
	return NeedsApprovalIn(confine.Single(root), permission, tool, target)
}

// NeedsApprovalIn is NeedsApproval in a project of several folders: a
// file that runs on use is judged in the folder that holds it, as in the
// root.
func NeedsApprovalIn(folders confine.Folders, permission, tool, target string) (need bool, reason, canon string) {
	if permission == PermissionFullAuto {
		return false, "", ""
	}
	s, ok := specOf(tool)
	if !ok {
		s = toolSpec{name: tool, runs: true}
	}
	if s.edits && target != "" {
		if pl, err := folders.Resolve(target); err == nil {
			if reason = RunOnUseIn(folders, pl.Folder.Root, pl.Canon); reason != "" {
				return true, reason, pl.Canon
			}
		}
	}
	if permission == PermissionAutoEdits {
		return s.runs, "", ""
	}
	return s.runs || s.edits, "", ""
}

// InFolder fills req's path for a call whose target lies in a folder of
// the project other than the session's root: NAME:path, with the
// folder's name and root (events.Approval.In). A target in the root, or
// refused, is left as the model wrote it.
func InFolder(folders confine.Folders, target string, req *events.Approval) {
	if target == "" {
		return
	}
	if pl, err := folders.Resolve(target); err == nil && pl.Index > 0 {
		req.Path, req.Folder, req.FolderRoot = pl.Label(), pl.Folder.Name, pl.Folder.Root
	}
}

// FileToolTarget returns the path argument of a call of one of the file
// tools (read, write, edit, ls, grep, find), "." when an optional one is
// absent; ok is false for other tools and for a required path missing.
func FileToolTarget(tool string, args json.RawMessage) (target string, ok bool) {
	if tool == ToolRemember {
		return "", false
	}
	return targetOf(tool, args)
}

// RememberTool returns the remember tool's description and parameter
// schema, as the built-in engine offers it, for the pi bridge to register
// the same tool.
func RememberTool() (description string, parameters json.RawMessage) {
	return rememberSpec.desc, json.RawMessage(rememberSpec.schema)
}

// DeniedText is the tool result the model reads for a call of tool that
// was not approved; err is the Approver's error (a *DeniedError carries
// the user's reason), nil for a plain no.
func DeniedText(tool string, err error) string {
	var d *DeniedError
	errors.As(err, &d)
	return deniedText(tool, d)
}

// Reach tells a host, once per folder, that a call about to run names a
// path in a folder of the project other than the session's root (Config.
// Reached): both engines note it so.
type Reach struct {
	fn   func(confine.Folder)
	mu   sync.Mutex
	seen map[string]bool
}

// NewReach returns a Reach calling fn (nil: nobody is told).
func NewReach(fn func(confine.Folder)) *Reach { return &Reach{fn: fn, seen: map[string]bool{}} }

// Note tells of pl's folder, the first time only; a place in the root
// tells nothing.
func (r *Reach) Note(pl confine.Place) {
	if r == nil || r.fn == nil || pl.Index == 0 {
		return
	}
	r.mu.Lock()
	first := !r.seen[pl.Folder.Root]
	r.seen[pl.Folder.Root] = true
	r.mu.Unlock()
	if first {
		r.fn(pl.Folder)
	}
}
