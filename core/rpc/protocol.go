package rpc

import "encoding/json"

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
