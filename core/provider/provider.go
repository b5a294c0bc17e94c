// Package provider talks to model servers. One small streaming interface,
// Client, hides the wire formats (OpenAI Chat Completions, Anthropic
// Messages and Google's Gemini API, all over SSE) from the agent loop,
// which only sees text and thinking deltas, complete tool calls, usage and
// a stop reason. It also knows where models and keys come from: a
// built-in catalogue, pi's models.json and auth.json, and the
// environment (see Registry and Resolve).
package provider

import (
	"context"
	"encoding/json"
	"time"
)

// Role is who wrote a message.
type Role string

// Message roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool" // tool results, answering an assistant's tool calls
)

// PartType is the kind of one piece of a message.
type PartType string

// Part types.
const (
	PartText       PartType = "text"
	PartThinking   PartType = "thinking"
	PartToolCall   PartType = "tool_call"   // in assistant messages
	PartToolResult PartType = "tool_result" // in tool messages
)

// Part is one piece of a message.
type Part struct {
	Type PartType `json:"type"`
	Text string   `json:"text,omitempty"` // text, thinking, or a tool result's content
	// Tool calls and results.
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"` // a tool call's input (a JSON object)
	IsError    bool            `json:"isError,omitempty"`   // a tool result that reports a failure
	// Signature carries provider data that must be sent back unchanged
	// (Anthropic thinking signatures).
	Signature string `json:"signature,omitempty"`
}

// Message is one turn of the conversation.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// Tool describes a tool the model may call; Schema is a JSON Schema object.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// Request is one model call.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []Tool
	MaxTokens int
	// Thinking is the thinking level (off … xhigh); "" means the
	// client's own (the level it was resolved with). Levels the model
	// does not support are clamped to the nearest one it does.
	Thinking string
}

// Usage counts tokens of one call.
type Usage struct {
	InputTokens      int `json:"input"`
	OutputTokens     int `json:"output"`
	CacheReadTokens  int `json:"cacheRead,omitempty"`
	CacheWriteTokens int `json:"cacheWrite,omitempty"`
}

// EventType tells what an Event carries.
type EventType int

// Stream events, in the order a stream may produce them.
const (
	EventTextDelta     EventType = iota + 1 // Text holds the new text
	EventThinkingDelta                      // Text holds new thinking
	EventToolCall                           // ToolCall is complete (arguments fully received)
	EventUsage                              // Usage so far
	// EventRetry says the call failed before any answer arrived and will
	// be tried again after Retry.Wait; nothing from the failed attempt
	// reaches the caller.
	EventRetry
)

// RetryInfo describes a retry: the attempt about to be made (1 for the
// first retry), how many retries are allowed, the wait before it and why
// the previous attempt failed.
type RetryInfo struct {
	Attempt, Max int
	Wait         time.Duration
	Reason       string
}

// Event is one streamed piece of an answer.
type Event struct {
	Type     EventType
	Text     string
	ToolCall *Part
	Usage    Usage
	Retry    *RetryInfo // EventRetry only
}

// Stop reasons.
const (
	StopEnd       = "end"        // the model finished its answer
	StopToolUse   = "tool_use"   // the model wants tool results
	StopMaxTokens = "max_tokens" // cut by the output limit
	StopAborted   = "aborted"    // the caller cancelled
	StopError     = "error"      // the stream broke; see Result.Err
)

// Result is the whole answer of one call. When the stream broke or was
// cancelled midway, Message holds what arrived (Partial is true) so the
// caller can keep and mark it.
type Result struct {
	Message    Message
	Usage      Usage
	StopReason string
	Partial    bool
}

// Client streams one model call. onEvent is called on the caller's
// goroutine order (never concurrently). Stream returns when the answer is
// complete, the context is cancelled, or the call failed; a failure is an
// *Error saying what happened and what to do.
type Client interface {
	Stream(ctx context.Context, req Request, onEvent func(Event)) (Result, error)
}
