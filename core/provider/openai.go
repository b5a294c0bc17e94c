package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

// openAIClient speaks the Chat Completions API (OpenAI and the many
// servers that copy it: Ollama, vLLM, llama.cpp, LM Studio, OpenRouter).
type openAIClient struct {
	c *conn
	// completionTokens sends max_completion_tokens, which OpenAI's own
	// API requires of its newer models, instead of max_tokens.
	completionTokens bool
}

type oaRequest struct {
	Model               string          `json:"model"`
	Messages            []oaMessage     `json:"messages"`
	Tools               []oaTool        `json:"tools,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	Thinking            *oaThinking     `json:"thinking,omitempty"`        // Z.ai
	EnableThinking      *bool           `json:"enable_thinking,omitempty"` // Qwen
	ChatTemplateKwargs  map[string]bool `json:"chat_template_kwargs,omitempty"`
	Stream              bool            `json:"stream"`
	StreamOptions       oaStreamOptions `json:"stream_options"`
}

type oaThinking struct {
	Type string `json:"type"` // enabled | disabled
}

type oaStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type oaMessage struct {
	Role       string       `json:"role"`
	Content    string       `json:"content"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

type oaToolCall struct {
	ID       string     `json:"id"`
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type oaTool struct {
	Type     string     `json:"type"`
	Function oaToolSpec `json:"function"`
}

type oaToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// toolSchema checks a tool's JSON Schema; empty means no parameters.
func toolSchema(c *conn, t Tool) (json.RawMessage, error) {
	s := trimSpace(t.Schema)
	if len(s) == 0 || string(s) == "null" {
		return emptySchema, nil
	}
	if !json.Valid(s) {
		return nil, c.errorf(ErrBadRequest, 0, fmt.Sprintf("tool %q has a schema that is not valid JSON", t.Name), "", nil)
	}
	return s, nil
}

func (o *openAIClient) body(req Request) ([]byte, error) {
	r := oaRequest{Model: req.Model, Stream: true, StreamOptions: oaStreamOptions{IncludeUsage: true}}
	m := o.c.modelInfo(req.Model)
	compat := detectCompat(o.c.baseURL, m.Compat)
	completionTokens := o.completionTokens
	switch compat.MaxTokensField {
	case "max_tokens":
		completionTokens = false
	case "max_completion_tokens":
		completionTokens = true
	}
	thinkOpenAI(&r, m, compat, o.c.level(req, m))
	if req.MaxTokens > 0 {
		if completionTokens {
			r.MaxCompletionTokens = req.MaxTokens
		} else {
			r.MaxTokens = req.MaxTokens
		}
	}
	if req.System != "" {
		r.Messages = append(r.Messages, oaMessage{Role: "system", Content: req.System})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleTool:
			for _, p := range m.Parts {
				if p.Type == PartToolResult {
					r.Messages = append(r.Messages, oaMessage{Role: "tool", ToolCallID: p.ToolCallID, Content: p.Text})
				}
			}
		case RoleAssistant:
			msg := oaMessage{Role: "assistant", Content: joinText(m.Parts)}
			for _, p := range m.Parts {
				if p.Type == PartToolCall {
					msg.ToolCalls = append(msg.ToolCalls, oaToolCall{ID: p.ToolCallID, Type: "function",
						Function: oaFunction{Name: p.ToolName, Arguments: argsText(p.Arguments)}})
				}
			}
			if msg.Content != "" || len(msg.ToolCalls) > 0 {
				r.Messages = append(r.Messages, msg)
			}
		default:
			r.Messages = append(r.Messages, oaMessage{Role: "user", Content: joinText(m.Parts)})
		}
	}
	for _, t := range req.Tools {
		s, err := toolSchema(o.c, t)
		if err != nil {
			return nil, err
		}
		r.Tools = append(r.Tools, oaTool{Type: "function", Function: oaToolSpec{Name: t.Name, Description: t.Description, Parameters: s}})
	}
	return json.Marshal(r)
}

// detectCompat fills what the configuration leaves open from the server,
// as pi does: xAI, Z.ai and DeepSeek take no reasoning_effort, and Z.ai
// switches thinking its own way.
func detectCompat(baseURL string, c pisettings.Compat) pisettings.Compat {
	zai := strings.Contains(baseURL, "api.z.ai")
	if c.SupportsReasoningEffort == nil && (zai || strings.Contains(baseURL, "api.x.ai") || strings.Contains(baseURL, "deepseek.com")) {
		no := false
		c.SupportsReasoningEffort = &no
	}
	if c.ThinkingFormat == "" && zai {
		c.ThinkingFormat = "zai"
	}
	return c
}

// thinkOpenAI sets the thinking switch of a request, only for reasoning
// models: reasoning_effort is the level's value in the model's map (or
// compat's reasoningEffortMap), else the level's name; at off it is sent
// only when the map names a value for off (such as "none").
func thinkOpenAI(r *oaRequest, m ModelInfo, compat pisettings.Compat, level string) {
	if !m.Reasoning {
		return
	}
	on := level != ThinkingOff
	switch compat.ThinkingFormat {
	case "zai":
		t := "disabled"
		if on {
			t = "enabled"
		}
		r.Thinking = &oaThinking{Type: t}
		return
	case "qwen":
		r.EnableThinking = &on
		return
	case "qwen-chat-template":
		r.ChatTemplateKwargs = map[string]bool{"enable_thinking": on}
		return
	}
	if compat.SupportsReasoningEffort != nil && !*compat.SupportsReasoningEffort {
		return
	}
	if v, ok := compat.ReasoningEffortMap[level]; ok {
		r.ReasoningEffort = v
		return
	}
	if v, ok := m.mapped(level); ok {
		r.ReasoningEffort = v
		return
	}
	if on {
		r.ReasoningEffort = level
	}
}

// joinText is a message's text parts, one per line.
func joinText(parts []Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type == PartText && p.Text != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Stream implements Client.
func (o *openAIClient) Stream(ctx context.Context, req Request, onEvent func(Event)) (Result, error) {
	if req.Model == "" {
		return Result{StopReason: StopError}, o.c.errorf(ErrNoModel, 0, "the request names no model", "choose one with --model PROVIDER/ID", nil)
	}
	body, err := o.body(req)
	if err != nil {
		return Result{StopReason: StopError}, err
	}
	return o.c.run(ctx, req.Model, body, func(st *state) decoder { return &oaDecoder{st: st} }, onEvent)
}

// oaChunk is one streamed chunk; only the first choice is read.
type oaChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
			ToolCalls        []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// oaCall is a tool call being streamed.
type oaCall struct {
	index int
	id    string
	name  string
	args  []byte
	piece int
}

// Keys of the text and thinking pieces; tool calls use their index + 1.
const (
	keyText     = -1
	keyThinking = -2
)

type oaDecoder struct {
	st       *state
	calls    []oaCall
	finished bool // a finish_reason arrived
}

var doneMarker = []byte("[DONE]")

func (d *oaDecoder) handle(_, data []byte) error {
	data = trimSpace(data)
	if len(data) == 0 {
		return nil
	}
	if bytes.Equal(data, doneMarker) {
		d.flush()
		d.st.finished = true
		return nil
	}
	var ch oaChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return badJSON(APIOpenAICompletions, err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return streamError(ch.Error)
	}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if c.Index != 0 {
			continue
		}
		if r := c.Delta.ReasoningContent; r != nil && *r != "" {
			d.text(PartThinking, keyThinking, *r)
		} else if r := c.Delta.Reasoning; r != nil && *r != "" {
			d.text(PartThinking, keyThinking, *r)
		}
		if t := c.Delta.Content; t != nil && *t != "" {
			d.text(PartText, keyText, *t)
		}
		for _, tc := range c.Delta.ToolCalls {
			d.toolDelta(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if f := c.FinishReason; f != nil && *f != "" {
			d.finish(*f)
		}
	}
	if u := ch.Usage; u != nil {
		usage := Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
		if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0 && u.PromptTokensDetails.CachedTokens <= u.PromptTokens {
			usage.CacheReadTokens = u.PromptTokensDetails.CachedTokens
			usage.InputTokens -= usage.CacheReadTokens
		}
		d.st.setUsage(usage)
	}
	return nil
}

// text appends to the last piece when it has the same kind, else starts
// a new one (so text, thinking, text keeps its order).
func (d *oaDecoder) text(typ PartType, key int, s string) {
	st := d.st
	i := len(st.pieces) - 1
	if i < 0 || st.pieces[i].key != key {
		i = st.add(typ, key)
	}
	st.appendText(i, s)
}

func (d *oaDecoder) toolDelta(index *int, id, name, args string) {
	var c *oaCall
	switch {
	case index != nil:
		for i := range d.calls {
			if d.calls[i].index == *index {
				c = &d.calls[i]
				break
			}
		}
	case len(d.calls) > 0 && (id == "" || id == d.calls[len(d.calls)-1].id):
		// Some servers omit the index; a chunk without a new id continues
		// the last call.
		c = &d.calls[len(d.calls)-1]
	}
	if c == nil {
		n := len(d.calls)
		if index != nil {
			n = *index
		}
		d.calls = append(d.calls, oaCall{index: n, piece: d.st.add(PartToolCall, 1<<30)})
		c = &d.calls[len(d.calls)-1]
	}
	if c.id == "" {
		c.id = id
	}
	if c.name == "" {
		c.name = name
	}
	c.args = append(c.args, args...)
}

func (d *oaDecoder) finish(reason string) {
	d.finished = true
	switch reason {
	case "tool_calls", "function_call":
		d.st.stop = StopToolUse
	case "length":
		d.st.stop = StopMaxTokens
	default:
		d.st.stop = StopEnd
	}
	d.flush()
}

// flush completes every streamed tool call, in index order.
func (d *oaDecoder) flush() {
	sort.SliceStable(d.calls, func(i, j int) bool { return d.calls[i].index < d.calls[j].index })
	for _, c := range d.calls {
		d.st.complete(c.piece, c.id, c.name, c.args)
	}
}

// eof accepts a stream that reported its finish reason but left out the
// final [DONE], as some servers do.
func (d *oaDecoder) eof() bool {
	if d.finished {
		d.flush()
		d.st.finished = true
	}
	return d.finished
}
