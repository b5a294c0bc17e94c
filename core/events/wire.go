package events

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/provider"
)

// The wire: the JSON lines `pi-tui rpc` and `prompt --json` write, and the
// "last" of get_state. This file is the only encoder of events. The shape
// is the flat object pi-tui has always written, keyed by "type" with pi's
// event names, field order included, so clients see the same bytes
// (testdata/wire.jsonl holds one line of every kind). New members are
// added at the end and left out when empty.

// ErrNoWireForm is Marshal's error for the kinds that never go on the
// wire (approvals, projects, memory, session arrivals): they concern the
// programs of this process only.
var ErrNoWireForm = errors.New("this kind of event is not written on the wire")

// wire is one line's object. Its fields and their order are the format.
type wire struct {
	Type         string          `json:"type"`
	SessionID    string          `json:"sessionId,omitempty"`
	Delta        string          `json:"delta,omitempty"`
	Thinking     string          `json:"thinking,omitempty"`
	ToolCallID   string          `json:"toolCallId,omitempty"`
	ToolName     string          `json:"toolName,omitempty"`
	Args         json.RawMessage `json:"args,omitempty"`
	Path         string          `json:"path,omitempty"`
	IsError      bool            `json:"isError,omitempty"`
	Result       string          `json:"result,omitempty"`
	Preflight    *Preflight      `json:"preflight,omitempty"`
	ToolMs       float64         `json:"toolMs,omitempty"`
	Usage        *provider.Usage `json:"usage,omitempty"`
	StopReason   string          `json:"stopReason,omitempty"`
	Error        string          `json:"error,omitempty"`
	Text         string          `json:"text,omitempty"`
	Summary      string          `json:"summary,omitempty"`
	Reason       string          `json:"reason,omitempty"`
	Model        string          `json:"model,omitempty"`
	Delivery     *Delivery       `json:"delivery,omitempty"`
	Denied       bool            `json:"denied,omitempty"`
	Attempt      int             `json:"attempt,omitempty"`
	MaxAttempts  int             `json:"maxAttempts,omitempty"`
	DelayMs      int64           `json:"delayMs,omitempty"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
	MemoryChange *memory.Change  `json:"memoryChange,omitempty"`
	// The files a tool call changed, as its checkpoint recorded them
	// (pi-tui sessions changes lists the same, with n).
	Changes     []wireChange `json:"changes,omitempty"`
	ChangesNote string       `json:"changesNote,omitempty"`
	Skipped     int64        `json:"skippedBytes,omitempty"`
	// Added with engines: runtime_launched names the engine that runs the session.
	Engine        string `json:"engine,omitempty"`
	EngineVersion string `json:"engineVersion,omitempty"`
	// Added with the pi engine: notices and extensions' display requests.
	Level     string   `json:"level,omitempty"`
	Source    string   `json:"source,omitempty"`
	Method    string   `json:"method,omitempty"`
	Key       string   `json:"key,omitempty"`
	Lines     []string `json:"lines,omitempty"`
	Placement string   `json:"placement,omitempty"`
	// Added with project trust under pi (ADR 0064): runtime_launched says
	// which of the project's own resources pi loaded or declined.
	ProjectResources *ProjectResources `json:"projectResources,omitempty"`
}

// wireQueue is queue_update's object, as pi's rpc writes it: both lists,
// empty ones too.
type wireQueue struct {
	Type      string   `json:"type"`
	SessionID string   `json:"sessionId,omitempty"`
	Steering  []string `json:"steering"`
	FollowUp  []string `json:"followUp"`
}

// Wire type names (pi's rpc event names, and pi-tui's runtime_*).
const (
	wireAgentStart      = "agent_start"
	wireMessageUpdate   = "message_update"
	wireMessageEnd      = "message_end"
	wireToolStart       = "tool_execution_start"
	wireToolUpdate      = "tool_execution_update"
	wireToolEnd         = "tool_execution_end"
	wireAgentEnd        = "agent_end"
	wireCompactionStart = "compaction_start"
	wireCompactionEnd   = "compaction_end"
	wireRetry           = "auto_retry_start"
	wireQueueUpdate     = "queue_update"
	wireLaunched        = "runtime_launched"
	wireReused          = "runtime_reused"
	wireRetired         = "runtime_retired"
	wireNotice          = "notice"
	wireExtStatus       = "extension_status"
)

// toWire maps an event onto the wire object.
func toWire(e Event) (any, bool) {
	switch e := e.(type) {
	case AgentStarted:
		return wire{Type: wireAgentStart, SessionID: e.SessionID}, true
	case TextDelta:
		return wire{Type: wireMessageUpdate, SessionID: e.SessionID, Delta: e.Text}, true
	case ThinkingDelta:
		return wire{Type: wireMessageUpdate, SessionID: e.SessionID, Thinking: e.Text}, true
	case MessageEnded:
		return wire{Type: wireMessageEnd, SessionID: e.SessionID, Text: e.Text, StopReason: e.StopReason, Usage: e.Usage, Error: e.Error}, true
	case Retrying:
		return wire{Type: wireRetry, SessionID: e.SessionID, Attempt: e.Attempt, MaxAttempts: e.MaxAttempts, DelayMs: e.Delay.Milliseconds(),
			ErrorMessage: e.Reason}, true
	case AgentEnded:
		return wire{Type: wireAgentEnd, SessionID: e.SessionID, Text: e.Text, Usage: e.Usage, StopReason: e.StopReason, Error: e.Error}, true
	case ToolStarted:
		return wire{Type: wireToolStart, SessionID: e.SessionID, ToolCallID: e.ToolCallID, ToolName: e.ToolName, Args: e.Args}, true
	case ToolOutput:
		return wire{Type: wireToolUpdate, SessionID: e.SessionID, ToolCallID: e.ToolCallID, ToolName: e.ToolName, Delta: e.Text, Skipped: e.Skipped}, true
	case ToolEnded:
		return wire{Type: wireToolEnd, SessionID: e.SessionID, ToolCallID: e.ToolCallID, ToolName: e.ToolName, Path: e.Path, IsError: e.IsError,
			Result: e.Result, Preflight: e.Preflight, ToolMs: e.ToolMs, Delivery: e.Delivery, Denied: e.Denied, MemoryChange: e.MemoryChange,
			Changes: wireChanges(e.Changes), ChangesNote: e.ChangesNote}, true
	case CompactionStarted:
		return wire{Type: wireCompactionStart, SessionID: e.SessionID}, true
	case CompactionEnded:
		return wire{Type: wireCompactionEnd, SessionID: e.SessionID, Summary: e.Summary, Error: e.Error}, true
	case QueueChanged:
		return wireQueue{Type: wireQueueUpdate, SessionID: e.SessionID, Steering: nonNil(e.Steering), FollowUp: nonNil(e.FollowUp)}, true
	case Notice:
		return wire{Type: wireNotice, SessionID: e.SessionID, Text: e.Text, Level: e.Level, Source: e.Source}, true
	case ExtensionStatus:
		return wire{Type: wireExtStatus, SessionID: e.SessionID, Text: e.Text, Method: e.Method, Key: e.Key, Lines: e.Lines, Placement: e.Placement}, true
	case RuntimeLaunched:
		return wire{Type: wireLaunched, SessionID: e.SessionID, Reason: e.Reason, Model: e.Model, Engine: e.Engine, EngineVersion: e.EngineVersion,
			ProjectResources: e.Resources}, true
	case RuntimeReused:
		return wire{Type: wireReused, SessionID: e.SessionID, Reason: e.Reason, Model: e.Model}, true
	case RuntimeRetired:
		return wire{Type: wireRetired, SessionID: e.SessionID, Reason: e.Reason, Model: e.Model}, true
	}
	return nil, false
}

// wireChange is a FileChange on the wire: the fields of `pi-tui sessions
// changes --json` that the call's end knows.
type wireChange struct {
	N       int    `json:"n"`
	Path    string `json:"path"`
	Status  string `json:"status"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Binary  bool   `json:"binary,omitempty"`
	Kept    bool   `json:"kept"`
}

func wireChanges(cs []FileChange) []wireChange {
	var out []wireChange
	for _, c := range cs {
		out = append(out, wireChange(c))
	}
	return out
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// Marshal returns e's wire object as JSON, without a line end. Text is
// written as it is (no HTML escaping: "<" stays "<"), as a JSON encoder
// with SetEscapeHTML(false) writes it. Kinds that are not on the wire
// return ErrNoWireForm; tool arguments that are not JSON fail.
func Marshal(e Event) ([]byte, error) {
	w, ok := toWire(e)
	if !ok {
		return nil, ErrNoWireForm
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
