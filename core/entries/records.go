package entries

import (
	"github.com/pi-tui/pi-tui/core/memory"
)

// pi-tui's own records in a session: custom entries, which pi keeps in
// the tree, hides and never sends to a model. Each is tied to the tool
// result it speaks of.

// CustomSubdirContext is the kind of the custom session entry that records
// a delivery (the name pi-agent-guidance uses). Custom entries are never
// sent to the model.
const CustomSubdirContext = "pi-agent-guidance:subdirectory-context"

// Delivered is one file a tool result carried, or a full read or write of
// a context file that counts as delivering it.
type Delivered struct {
	Label     string `json:"label"`
	Path      string `json:"path"`
	Digest    string `json:"digest"`
	Bytes     int    `json:"bytes"`
	Truncated bool   `json:"truncated,omitempty"`
	Via       string `json:"via"` // "block", "read" or "write"
}

// DeliveryRecord is the payload of a CustomSubdirContext entry, tied to
// the tool result entry that carried it.
type DeliveryRecord struct {
	Kind         string      `json:"kind"`
	ToolCallID   string      `json:"toolCallId"`
	ToolResultID string      `json:"toolResultId"`
	Delivered    []Delivered `json:"delivered,omitempty"`
	Deferred     []string    `json:"deferred,omitempty"`
	// Labels and Withheld are the chain in effect for the tool, kept by
	// the pi bridge, whose tool results have no preflight member; the
	// built-in engine leaves them out (its results carry the preflight).
	Labels   []string `json:"labels,omitzero"`
	Withheld []string `json:"withheld,omitempty"`
}

// CustomMemoryChange is the kind of the custom session entry that records
// a remember change, tied to its tool result, so that the change can be
// shown and undone after the session is reopened.
const CustomMemoryChange = "memory_change"

// CustomMemoryUndone is the kind of the custom session entry that records
// the user's undo of a remember change (named by its tool call), so a
// reopened session shows it undone.
const CustomMemoryUndone = "memory_change_undone"

// MemoryUndoneRecord is the payload of a CustomMemoryUndone entry.
type MemoryUndoneRecord struct {
	Kind       string `json:"kind"`
	ToolCallID string `json:"toolCallId"`
}

// MemoryChangeRecord is the payload of a CustomMemoryChange entry.
type MemoryChangeRecord struct {
	Kind         string        `json:"kind"`
	ToolCallID   string        `json:"toolCallId"`
	ToolResultID string        `json:"toolResultId"`
	Change       memory.Change `json:"change"`
}
