// Package entries is the vocabulary of a session's entries that both
// engines write and every program reads back: the stored message of a
// user, assistant or tool_result entry, pi-tui's custom records (the
// instructions a tool result delivered, the agent's memory changes and
// their undoing), the texts a tool result carries that say how a call
// ended (denied, refused by plan mode, a command that ran), the words of
// plan mode, and how a tool call is described to a person.
//
// It sits below both engines (core/agent, core/piengine and the pi
// bridge) and below the programs (ui/...), so a transcript, an approval
// dialog or an export reads a session the same whichever engine wrote
// it, and without depending on either.
package entries

import (
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
)

// StoredMessage is the payload of user, assistant and tool_result entries.
type StoredMessage struct {
	Message    provider.Message `json:"message"`
	Usage      *provider.Usage  `json:"usage,omitempty"`
	StopReason string           `json:"stopReason,omitempty"`
	Partial    bool             `json:"partial,omitempty"`
	Error      string           `json:"error,omitempty"`
	Model      string           `json:"model,omitempty"`
	// API is the model's wire API (pi's "api": anthropic-messages, …).
	API string `json:"api,omitempty"`
	// Tool results only.
	Tool      string            `json:"tool,omitempty"`
	Path      string            `json:"path,omitempty"`
	Preflight *events.Preflight `json:"preflight,omitempty"`
	ToolMs    float64           `json:"toolMs,omitempty"`
}
