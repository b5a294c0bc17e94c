package bridge

import "encoding/json"

// Protocol is the version of the host↔bridge protocol this package speaks
// (docs/adr/0046-pi-bridge.md has the whole protocol).
const Protocol = 1

// The two environment variables that name the channel to the bridge.
const (
	EnvSocket = "PI_TUI_BRIDGE_SOCKET"
	EnvToken  = "PI_TUI_BRIDGE_TOKEN"
)

// Limits of the channel.
const (
	// MaxHelloBytes bounds the first line a peer sends.
	MaxHelloBytes = 4 << 10
	// MaxLineBytes bounds every later line: a longer one ends the channel.
	MaxLineBytes = 8 << 20
	// MaxInFlight bounds the requests being answered at once; the next
	// line is not read until one ends, so a flood of requests waits in the
	// socket's buffer instead of in the host's memory.
	MaxInFlight = 16
)

// Methods of the protocol.
const (
	MethodSystem     = "system"
	MethodToolCall   = "tool_call"
	MethodToolResult = "tool_result"
	MethodRemember   = "remember"
	MethodTrust      = "trust"
	// MethodSent reports what pi sends the model (docs/adr/0069); a host
	// that is not a SentHost answers it with nothing.
	MethodSent = "sent"
)

// hello is the peer's first line.
type hello struct {
	Type      string `json:"type"`
	Token     string `json:"token"`
	Protocol  int    `json:"protocol"`
	PiVersion string `json:"piVersion"`
	PID       int    `json:"pid"`
}

// welcome answers a hello that carries the right token.
type welcome struct {
	Type     string `json:"type"` // "welcome"
	Protocol int    `json:"protocol"`
	Remember bool   `json:"remember"`
	// RememberTool is the tool to register when Remember is set: the
	// built-in engine's remember tool, so both engines offer the same one.
	RememberTool *ToolDef `json:"rememberTool,omitempty"`
}

// ToolDef is a tool the bridge registers in pi.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// refused answers any other first line, before the connection is closed.
type refused struct {
	Type  string `json:"type"` // "refused"
	Error string `json:"error"`
}

// request is one call from the bridge.
type request struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
}

// response answers a request: Result or Error.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// SystemRequest is the system method's params: the tools pi has active
// when the prompt starts (before plan mode narrowed them), each with
// whether its author marks it read-only (pi's annotations.readOnlyHint),
// so the host can say which of them plan mode keeps.
type SystemRequest struct {
	Tools []ToolState `json:"tools,omitempty"`
}

// ToolState is one of pi's tools as the bridge sees it.
type ToolState struct {
	Name     string `json:"name"`
	ReadOnly bool   `json:"readOnly,omitempty"`
	// Params are its schema's properties, in order: a call's arguments
	// are shown by them.
	Params []string `json:"params,omitempty"`
}

// SystemResult is the system method's answer: the text appended to pi's
// system prompt ("" for none). In plan mode Plan is set and Tools are
// the tools the bridge makes pi's active ones for the prompt (it puts the
// earlier ones back once plan mode is off).
type SystemResult struct {
	Text  string   `json:"text"`
	Plan  bool     `json:"plan,omitempty"`
	Tools []string `json:"tools,omitempty"`
}

// ToolCallRequest is a tool call pi is about to run.
type ToolCallRequest struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
	// LeafID is pi's session leaf when the call was made (its assistant
	// message), when the bridge could tell.
	LeafID string `json:"leafId,omitempty"`
	// ReadOnly is set when the tool's author marks it read-only (pi's
	// annotations.readOnlyHint): plan mode lets such a tool run.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Params are the tool schema's properties, in order (its approval
	// shows the arguments by them).
	Params []string `json:"params,omitempty"`
	// Cwd is the folder pi works in (its ctx.cwd: the session header's
	// cwd, not the folder pi was started in). A call from a pi working
	// elsewhere than the root the host bound is blocked.
	Cwd string `json:"cwd,omitempty"`
}

// ToolCallResult lets the call run or blocks it with a reason the model
// reads.
type ToolCallResult struct {
	Block  bool   `json:"block"`
	Reason string `json:"reason,omitempty"`
	// Path, when set, is the path pi's file tool is to use instead of the
	// one the model wrote (the bridge sets its input's path): the
	// canonical path of a file in another folder of the project, which
	// the model may write NAME:path (ADR 0089), a form pi does not know.
	Path string `json:"path,omitempty"`
}

// Content is one part of a tool result as pi has it.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

// ToolResultRequest is a tool's result before pi stores it.
type ToolResultRequest struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
	IsError    bool            `json:"isError"`
	Content    []Content       `json:"content"`
	// Details is the tool's details object (a read's truncation, …).
	Details json.RawMessage `json:"details,omitempty"`
	// ParentToolCallID is set for a call another tool made (codemode):
	// such calls get no delivery, as in the built-in engine.
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	LeafID           string `json:"leafId,omitempty"`
}

// Entry is a custom entry the bridge records with pi.appendEntry.
type Entry struct {
	CustomType string `json:"customType"`
	Data       any    `json:"data"`
}

// ToolResultResult is what the result gets: text appended as a text part,
// and an entry recorded after it (both optional).
type ToolResultResult struct {
	Append string `json:"append,omitempty"`
	Entry  *Entry `json:"entry,omitempty"`
}

// RememberRequest is a call of the remember tool.
type RememberRequest struct {
	ToolCallID string          `json:"toolCallId,omitempty"`
	Input      json.RawMessage `json:"input"`
}

// RememberResult is the remember tool's result.
type RememberResult struct {
	Text    string `json:"text"`
	IsError bool   `json:"isError"`
}

// TrustRequest asks whether pi may trust the project in cwd.
type TrustRequest struct {
	CWD string `json:"cwd"`
}

// TrustResult is pi-tui's decision: "yes" or "no".
type TrustResult struct {
	Trusted string `json:"trusted"`
}

// SentRequest is what pi sends the model, as the bridge reports it: at
// pi's start (Pending: pi's own prompt and active tools, nothing sent
// yet), then at each model request whose prompt or tools changed.
type SentRequest struct {
	Pending      bool       `json:"pending,omitempty"`
	SystemPrompt string     `json:"systemPrompt"`
	Tools        []SentTool `json:"tools"`
}

// SentTool is one tool declaration as the request carries it.
type SentTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}
