package bridge

import "context"

// Host answers the bridge's requests for one runtime. Its methods may be
// called concurrently (up to MaxInFlight at once); each ctx ends when the
// request's channel or the server does. An error is one line the bridge
// reports (for tool_call: the call is blocked with it).
type Host interface {
	// RememberAllowed says whether the bridge registers the remember tool
	// (asked once, at the welcome).
	RememberAllowed() bool
	System(ctx context.Context, req SystemRequest) (SystemResult, error)
	ToolCall(ctx context.Context, req ToolCallRequest) (ToolCallResult, error)
	ToolResult(ctx context.Context, req ToolResultRequest) (ToolResultResult, error)
	Remember(ctx context.Context, req RememberRequest) (RememberResult, error)
	Trust(ctx context.Context, req TrustRequest) (TrustResult, error)
}

// SentHost is a Host that keeps what pi sends the model (the sent
// method), for /context.
type SentHost interface {
	Sent(ctx context.Context, req SentRequest) error
}
