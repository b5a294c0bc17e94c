package agent

// The rules the pi bridge's host (core/bridge) decides with, shared with
// the built-in engine so that a tool call is judged the same whichever
// engine runs it.

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/memory"
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
	if permission == PermissionFullAuto {
		return false, "", ""
	}
	s, ok := specOf(tool)
	if !ok {
		s = toolSpec{name: tool, runs: true}
	}
	if s.edits && target != "" {
		if p, err := confine.Path(root, target); err == nil {
			if reason = runOnUse(root, p); reason != "" {
				return true, reason, p
			}
		}
	}
	if permission == PermissionAutoEdits {
		return s.runs, "", ""
	}
	return s.runs || s.edits, "", ""
}

// FileToolTarget returns the path argument of a call of one of the file
// tools (read, write, edit, ls, grep, find), "." when an optional one is
// absent; ok is false for other tools and for a required path missing.
func FileToolTarget(tool string, args json.RawMessage) (target string, ok bool) {
	if tool == ToolRemember {
		return "", false
	}
	return targetOf(ToolCall{Name: tool, Args: args})
}

// RememberTool returns the remember tool's description and parameter
// schema, as the built-in engine offers it, for the pi bridge to register
// the same tool.
func RememberTool() (description string, parameters json.RawMessage) {
	return rememberSpec.desc, json.RawMessage(rememberSpec.schema)
}

// Remember runs a remember call (its JSON arguments) against w, as the
// built-in engine's tool does: the text the model reads, and the change
// made (nil when none). A failure is an error whose text the model reads.
func Remember(ctx context.Context, w MemoryWriter, args json.RawMessage) (string, *memory.Change, error) {
	res, err := toolRemember(ctx, w, args)
	return res.Text, res.Change, err
}

// DeniedText is the tool result the model reads for a call of tool that
// was not approved; err is the Approver's error (a *DeniedError carries
// the user's reason), nil for a plain no.
func DeniedText(tool string, err error) string {
	var d *DeniedError
	errors.As(err, &d)
	return deniedText(tool, d)
}
