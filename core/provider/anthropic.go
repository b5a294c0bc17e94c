package provider

import (
	"context"
	"encoding/json"
)

// anthropicClient speaks Anthropic's Messages API.
type anthropicClient struct {
	c *conn
}

// defaultAnthropicMaxTokens is max_tokens (which the API requires) when
// neither the request nor the model's configuration gives one.
const defaultAnthropicMaxTokens = 8192

type anRequest struct {
	Model        string            `json:"model"`
	MaxTokens    int               `json:"max_tokens"`
	System       string            `json:"system,omitempty"`
	Messages     []anMessage       `json:"messages"`
	Tools        []anTool          `json:"tools,omitempty"`
	Thinking     *anThinkingConfig `json:"thinking,omitempty"`
	OutputConfig *anOutputConfig   `json:"output_config,omitempty"`
	Stream       bool              `json:"stream"`
}

// anThinkingConfig switches thinking: enabled with a budget (older
// models), adaptive (newer ones, steered by output_config.effort), or
// disabled.
type anThinkingConfig struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
	// Display asks newer models to return their thinking summarised
	// (they omit it by default), so it can be shown.
	Display string `json:"display,omitempty"`
}

type anOutputConfig struct {
	Effort string `json:"effort"`
}

type anMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type anText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anToolUse struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type anToolResult struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
}

type anThinking struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type anTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// toolID keeps an id within the characters Anthropic accepts
// ([A-Za-z0-9_-]), so calls made by another provider can be sent back.
func toolID(id string) string {
	ok := id != ""
	for i := 0; i < len(id) && ok; i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	if ok {
		return id
	}
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "call_"
	}
	return string(b)
}

func (a *anthropicClient) body(req Request) ([]byte, error) {
	r := anRequest{Model: req.Model, MaxTokens: req.MaxTokens, System: req.System, Stream: true}
	m := a.c.modelInfo(req.Model)
	if r.MaxTokens <= 0 {
		r.MaxTokens = m.MaxTokens
	}
	if r.MaxTokens <= 0 {
		r.MaxTokens = defaultAnthropicMaxTokens
	}
	a.thinking(&r, m, a.c.level(req, m))
	for _, m := range req.Messages {
		role := "user"
		if m.Role == RoleAssistant {
			role = "assistant"
		}
		var blocks []any
		for _, p := range m.Parts {
			switch {
			case p.Type == PartText && p.Text != "" && m.Role != RoleTool:
				blocks = append(blocks, anText{Type: "text", Text: p.Text})
			case p.Type == PartThinking && m.Role == RoleAssistant && p.Signature != "":
				// Only signed thinking may be sent back; thinking from
				// other providers has no signature and is dropped.
				blocks = append(blocks, anThinking{Type: "thinking", Thinking: p.Text, Signature: p.Signature})
			case p.Type == PartToolCall && m.Role == RoleAssistant:
				blocks = append(blocks, anToolUse{Type: "tool_use", ID: toolID(p.ToolCallID), Name: p.ToolName, Input: argsObject(p.Arguments)})
			case p.Type == PartToolResult:
				blocks = append(blocks, anToolResult{Type: "tool_result", ToolUseID: toolID(p.ToolCallID), Content: p.Text, IsError: p.IsError})
			}
		}
		if len(blocks) == 0 {
			continue
		}
		// Tool results travel in a user message; consecutive messages of
		// one role are merged.
		if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == role {
			r.Messages[n-1].Content = append(r.Messages[n-1].Content, blocks...)
			continue
		}
		r.Messages = append(r.Messages, anMessage{Role: role, Content: blocks})
	}
	for _, t := range req.Tools {
		s, err := toolSchema(a.c, t)
		if err != nil {
			return nil, err
		}
		r.Tools = append(r.Tools, anTool{Name: t.Name, Description: t.Description, InputSchema: s})
	}
	return json.Marshal(r)
}

// thinking sets the request's thinking for a level (pi's mapping):
// adaptive models get an effort, or thinking disabled at off; the others
// get budget_tokens (minimal 1024, low 2048, medium 8192, high 16384,
// unless the model's thinkingLevelMap gives a number), with max_tokens
// raised to leave room for the answer, up to the model's limit.
func (a *anthropicClient) thinking(r *anRequest, m ModelInfo, level string) {
	if !m.Reasoning {
		return
	}
	adaptive := m.Thinking == "adaptive" || m.Thinking == "" && anthropicAdaptive(m.ID)
	switch {
	case adaptive && level == ThinkingOff:
		r.Thinking = &anThinkingConfig{Type: "disabled"}
	case adaptive:
		r.Thinking = &anThinkingConfig{Type: "adaptive", Display: "summarized"}
		r.OutputConfig = &anOutputConfig{Effort: anthropicEffort(m, level)}
	case level != ThinkingOff:
		budget := budgetFor(m, level)
		limit := r.MaxTokens + budget
		if m.MaxTokens > 0 && limit > m.MaxTokens {
			limit = max(m.MaxTokens, r.MaxTokens)
		}
		if limit <= budget {
			budget = limit - minThinkingBudget
		}
		if budget < minThinkingBudget {
			return // no room to think: answer without
		}
		r.MaxTokens = limit
		r.Thinking = &anThinkingConfig{Type: "enabled", BudgetTokens: budget}
	}
}

// Stream implements Client.
func (a *anthropicClient) Stream(ctx context.Context, req Request, onEvent func(Event)) (Result, error) {
	if req.Model == "" {
		return Result{StopReason: StopError}, a.c.errorf(ErrNoModel, 0, "the request names no model", "choose one with --model PROVIDER/ID", nil)
	}
	body, err := a.body(req)
	if err != nil {
		return Result{StopReason: StopError}, err
	}
	return a.c.run(ctx, req.Model, body, func(st *state) decoder { return &anDecoder{st: st} }, onEvent)
}

type anUsage struct {
	InputTokens         *int `json:"input_tokens"`
	OutputTokens        *int `json:"output_tokens"`
	CacheCreationTokens *int `json:"cache_creation_input_tokens"`
	CacheReadTokens     *int `json:"cache_read_input_tokens"`
}

// anEvent is any event of the stream; which members are set depends on
// its type.
type anEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Usage *anUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anUsage        `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// anBlock is a content block being streamed.
type anBlock struct {
	index int
	piece int
	tool  bool
	id    string
	name  string
	input []byte // from content_block_start
	args  []byte // input_json_delta pieces
	delta bool   // some input_json_delta arrived
}

type anDecoder struct {
	st      *state
	blocks  []anBlock
	stopped bool // message_delta gave a stop reason
}

func (d *anDecoder) block(index int) *anBlock {
	for i := len(d.blocks) - 1; i >= 0; i-- {
		if d.blocks[i].index == index {
			return &d.blocks[i]
		}
	}
	return nil
}

// textBlock is the block for a text or thinking delta, started if the
// server skipped content_block_start.
func (d *anDecoder) textBlock(index int, typ PartType) *anBlock {
	if b := d.block(index); b != nil {
		return b
	}
	d.blocks = append(d.blocks, anBlock{index: index, piece: d.st.add(typ, index)})
	return &d.blocks[len(d.blocks)-1]
}

func (d *anDecoder) usage(u *anUsage) {
	if u == nil {
		return
	}
	cur := d.st.usage
	if u.InputTokens != nil {
		cur.InputTokens = *u.InputTokens
	}
	if u.OutputTokens != nil {
		cur.OutputTokens = *u.OutputTokens
	}
	if u.CacheCreationTokens != nil {
		cur.CacheWriteTokens = *u.CacheCreationTokens
	}
	if u.CacheReadTokens != nil {
		cur.CacheReadTokens = *u.CacheReadTokens
	}
	d.st.setUsage(cur)
}

func (d *anDecoder) handle(typ, data []byte) error {
	data = trimSpace(data)
	if len(data) == 0 {
		return nil
	}
	var ev anEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return badJSON(APIAnthropicMessages, err)
	}
	kind := ev.Type
	if kind == "" {
		kind = string(typ)
	}
	switch kind {
	case "message_start":
		if ev.Message != nil {
			d.usage(ev.Message.Usage)
		}
	case "content_block_start":
		cb := ev.ContentBlock
		if cb == nil || d.block(ev.Index) != nil {
			return nil
		}
		switch cb.Type {
		case "tool_use":
			d.blocks = append(d.blocks, anBlock{index: ev.Index, piece: d.st.add(PartToolCall, ev.Index), tool: true,
				id: cb.ID, name: cb.Name, input: append([]byte(nil), cb.Input...)})
		case "thinking":
			b := d.textBlock(ev.Index, PartThinking)
			d.st.appendText(b.piece, cb.Thinking)
			d.st.pieces[b.piece].sig = append(d.st.pieces[b.piece].sig, cb.Signature...)
		case "text":
			b := d.textBlock(ev.Index, PartText)
			d.st.appendText(b.piece, cb.Text)
		}
	case "content_block_delta":
		dl := ev.Delta
		if dl == nil {
			return nil
		}
		switch dl.Type {
		case "text_delta":
			b := d.textBlock(ev.Index, PartText)
			if d.st.pieces[b.piece].typ == PartText {
				d.st.appendText(b.piece, dl.Text)
			}
		case "thinking_delta":
			b := d.textBlock(ev.Index, PartThinking)
			if d.st.pieces[b.piece].typ == PartThinking {
				d.st.appendText(b.piece, dl.Thinking)
			}
		case "signature_delta":
			b := d.textBlock(ev.Index, PartThinking)
			if p := &d.st.pieces[b.piece]; p.typ == PartThinking {
				p.sig = append(p.sig, dl.Signature...)
			}
		case "input_json_delta":
			if b := d.block(ev.Index); b != nil && b.tool {
				b.args = append(b.args, dl.PartialJSON...)
				b.delta = true
			}
		}
	case "content_block_stop":
		if b := d.block(ev.Index); b != nil && b.tool {
			d.finishTool(b)
		}
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			d.stopped = true
			switch ev.Delta.StopReason {
			case "tool_use":
				d.st.stop = StopToolUse
			case "max_tokens":
				d.st.stop = StopMaxTokens
			default:
				d.st.stop = StopEnd
			}
		}
		d.usage(ev.Usage)
	case "message_stop":
		d.finishAll()
		d.st.finished = true
	case "error":
		if len(ev.Error) > 0 {
			return streamError(ev.Error)
		}
		return streamError(json.RawMessage(data))
	}
	return nil
}

func (d *anDecoder) finishTool(b *anBlock) {
	args := b.args
	if !b.delta {
		args = b.input
	}
	d.st.complete(b.piece, b.id, b.name, args)
}

// finishAll completes tool calls whose content_block_stop never came.
func (d *anDecoder) finishAll() {
	for i := range d.blocks {
		if d.blocks[i].tool {
			d.finishTool(&d.blocks[i])
		}
	}
}

// eof accepts a stream that gave its stop reason but not message_stop.
func (d *anDecoder) eof() bool {
	if d.stopped {
		d.finishAll()
		d.st.finished = true
	}
	return d.stopped
}
