package rpc

import (
	"encoding/json"

	"github.com/pi-tui/pi-tui/core/provider"
)

// command is one line of rpc input.
type command struct {
	// ID is echoed in the command's response exactly as the client wrote
	// it: any JSON value (a number, a string, null, an object).
	ID           json.RawMessage `json:"id"`
	Type         string          `json:"type"`
	Message      string          `json:"message"`
	EntryID      *string         `json:"entryId"`
	Model        string          `json:"model"`
	Provider     string          `json:"provider"`
	ModelID      string          `json:"modelId"`
	Level        string          `json:"level"`
	Instructions string          `json:"customInstructions"`
	// Worktree starts the new_session in a git worktree of its own, on a
	// branch from Base ("" = the checked-out branch).
	Worktree bool   `json:"worktree"`
	Base     string `json:"base"`
	// Plan is set_plan's: plan mode on or off for the session.
	Plan *bool `json:"plan"`
	// raw is the command's line, for passing pi's own commands through.
	raw []byte
}

// response answers one command.
type response struct {
	Type    string          `json:"type"`
	ID      json.RawMessage `json:"id,omitempty"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Error   string          `json:"error,omitempty"`
	Data    any             `json:"data,omitempty"`
}

// stateReply is get_state's data: the session's runtime (its last launch,
// reuse or retirement as the event went on the wire) and the rpc's
// project and model setting.
type stateReply struct {
	SessionID string          `json:"sessionId"`
	Runtime   string          `json:"runtime"` // none, idle, working
	Model     string          `json:"model,omitempty"`
	Thinking  string          `json:"thinkingLevel,omitempty"`
	Last      json.RawMessage `json:"last,omitempty"`
	Usage     *provider.Usage `json:"usage,omitempty"`
	Leaf      string          `json:"leafId,omitempty"`
	Title     string          `json:"title,omitempty"`
	Project   string          `json:"project"`
	Root      string          `json:"root"`
	ModelIn   string          `json:"modelSetting,omitempty"`
	// Plan says the session is in plan mode (set_plan).
	Plan bool `json:"plan"`
}
