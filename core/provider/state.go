package provider

import (
	"crypto/rand"
	"encoding/json"
)

// piece is one part of the answer being assembled. Text and thinking grow
// with every delta; a tool call joins the message once it is complete.
type piece struct {
	typ  PartType
	key  int // the wire's block or tool-call index
	text []byte
	sig  []byte
	call *Part // complete tool call
}

// state collects one streamed answer and passes events on.
type state struct {
	onEvent  func(Event)
	sent     int // events delivered to the caller
	pieces   []piece
	usage    Usage
	stop     string
	finished bool // the stream's terminator arrived
}

func (s *state) emit(e Event) {
	s.sent++
	if s.onEvent != nil {
		s.onEvent(e)
	}
}

func (s *state) add(typ PartType, key int) int {
	s.pieces = append(s.pieces, piece{typ: typ, key: key})
	return len(s.pieces) - 1
}

// appendText adds a text or thinking delta to piece i and emits it.
func (s *state) appendText(i int, delta string) {
	if delta == "" || i < 0 {
		return
	}
	p := &s.pieces[i]
	p.text = append(p.text, delta...)
	t := EventTextDelta
	if p.typ == PartThinking {
		t = EventThinkingDelta
	}
	s.emit(Event{Type: t, Text: delta})
}

// complete records piece i as a finished tool call and emits it.
func (s *state) complete(i int, id, name string, args []byte) {
	if i < 0 || s.pieces[i].call != nil {
		return
	}
	if id == "" {
		id = "call_" + rand.Text()[:16]
	}
	call := Part{Type: PartToolCall, ToolCallID: id, ToolName: name, Arguments: toolArgs(args)}
	s.pieces[i].call = &call
	ev := call
	s.emit(Event{Type: EventToolCall, ToolCall: &ev})
}

func (s *state) setUsage(u Usage) {
	s.usage = u
	s.emit(Event{Type: EventUsage, Usage: u})
}

func (s *state) hasCalls() bool {
	for i := range s.pieces {
		if s.pieces[i].call != nil {
			return true
		}
	}
	return false
}

// result is the answer so far. stop "" means the stop reason the stream
// reported (end when it reported none).
func (s *state) result(stop string, partial bool) Result {
	if stop == "" {
		stop = s.stop
		if stop == "" || stop == StopEnd && s.hasCalls() {
			if s.hasCalls() {
				stop = StopToolUse
			} else {
				stop = StopEnd
			}
		}
	}
	msg := Message{Role: RoleAssistant}
	for i := range s.pieces {
		p := &s.pieces[i]
		switch {
		case p.call != nil:
			msg.Parts = append(msg.Parts, *p.call)
		case p.typ == PartText && len(p.text) > 0:
			msg.Parts = append(msg.Parts, Part{Type: PartText, Text: string(p.text)})
		case p.typ == PartThinking && (len(p.text) > 0 || len(p.sig) > 0):
			msg.Parts = append(msg.Parts, Part{Type: PartThinking, Text: string(p.text), Signature: string(p.sig)})
		}
	}
	return Result{Message: msg, Usage: s.usage, StopReason: stop, Partial: partial}
}

// toolArgs makes a tool call's streamed input a JSON value: empty input
// is {}, and text that is not JSON is kept as a JSON string so the
// message can still be stored and the tool can report the problem.
func toolArgs(b []byte) json.RawMessage {
	b = trimSpace(b)
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(b) {
		return json.RawMessage(append([]byte(nil), b...))
	}
	q, _ := json.Marshal(string(b))
	return json.RawMessage(q)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// argsText is a tool call's arguments as the string OpenAI expects: the
// JSON text, or the text kept by toolArgs for input that was not JSON.
func argsText(a json.RawMessage) string {
	a = trimSpace(a)
	if len(a) == 0 {
		return "{}"
	}
	if a[0] == '"' {
		var s string
		if json.Unmarshal(a, &s) == nil {
			return s
		}
	}
	return string(a)
}

// argsObject is a tool call's arguments as the JSON object Anthropic
// expects; anything else becomes {}.
func argsObject(a json.RawMessage) json.RawMessage {
	a = trimSpace(a)
	if len(a) > 0 && a[0] == '{' && json.Valid(a) {
		return a
	}
	return json.RawMessage("{}")
}

// streamError maps an error object sent inside a stream to an *Error.
func streamError(raw json.RawMessage) *Error {
	var o struct {
		Type    string          `json:"type"`
		Message string          `json:"message"`
		Code    json.RawMessage `json:"code"`
		Status  string          `json:"status"` // Gemini's
	}
	msg := errorMessage(raw)
	_ = json.Unmarshal(raw, &o)
	kind, hint := ErrOther, "try again"
	code := string(trimSpace(o.Code))
	switch {
	case o.Type == "overloaded_error" || o.Type == "api_error" || o.Type == "server_error" || len(code) == 3 && code[0] == '5' ||
		o.Status == "INTERNAL" || o.Status == "UNAVAILABLE":
		kind, hint = ErrServer, "try again later"
	case o.Type == "rate_limit_error" || code == "429" || code == `"rate_limit_exceeded"` || o.Status == "RESOURCE_EXHAUSTED":
		kind, hint = ErrRateLimit, "wait a moment and try again"
	case o.Type == "authentication_error" || o.Type == "permission_error" || code == "401" || code == "403" ||
		o.Status == "UNAUTHENTICATED" || o.Status == "PERMISSION_DENIED":
		kind, hint = ErrAuth, "check the API key"
	case o.Type == "not_found_error" || code == "404" || o.Status == "NOT_FOUND":
		kind, hint = ErrNotFound, "check the model id and the baseUrl"
	case o.Type == "invalid_request_error" || code == "400" || o.Status == "INVALID_ARGUMENT":
		kind, hint = ErrBadRequest, ""
	}
	if msg == "" {
		msg = "the server reported an error in the stream"
	}
	// Not cleaned here: the client redacts keys first, then cleans.
	e := &Error{Kind: kind, Detail: msg, Hint: hint}
	if kind == ErrServer && len(code) == 3 && code[0] == '5' {
		e.Status, _ = atoi3(code)
	}
	if kind == ErrAuth {
		// The server rejected the key (a missing key never gets this far).
		e.Status = 401
		if code == "403" || o.Status == "PERMISSION_DENIED" || o.Type == "permission_error" {
			e.Status = 403
		}
	}
	return e
}

func atoi3(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// badJSON reports a data line that is not the JSON the format promises.
func badJSON(api string, err error) *Error {
	return &Error{Kind: ErrOther, Detail: "the server sent invalid JSON in the stream", Err: err,
		Hint: "check that the baseUrl serves the " + api + " API"}
}
