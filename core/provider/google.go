package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// googleClient speaks Google's Gemini API (google-generative-ai):
// streamGenerateContent with alt=sse.
type googleClient struct {
	c *conn
}

type gmRequest struct {
	Contents          []gmContent   `json:"contents"`
	SystemInstruction *gmContent    `json:"systemInstruction,omitempty"`
	Tools             []gmTools     `json:"tools,omitempty"`
	GenerationConfig  *gmGeneration `json:"generationConfig,omitempty"`
}

type gmContent struct {
	Role  string   `json:"role,omitempty"`
	Parts []gmPart `json:"parts"`
}

type gmPart struct {
	Text             string              `json:"text,omitempty"`
	Thought          bool                `json:"thought,omitempty"`
	ThoughtSignature string              `json:"thoughtSignature,omitempty"`
	FunctionCall     *gmFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *gmFunctionResponse `json:"functionResponse,omitempty"`
}

type gmFunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type gmFunctionResponse struct {
	Name     string            `json:"name"`
	Response map[string]string `json:"response"`
}

type gmTools struct {
	FunctionDeclarations []gmFunctionDeclaration `json:"functionDeclarations"`
}

type gmFunctionDeclaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
}

type gmGeneration struct {
	MaxOutputTokens int               `json:"maxOutputTokens,omitempty"`
	ThinkingConfig  *gmThinkingConfig `json:"thinkingConfig,omitempty"`
}

type gmThinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

// skipSignature is what Gemini 3 takes instead of a thought signature on a
// function call that has none (one made by another provider).
const skipSignature = "skip_thought_signature_validator"

func (g *googleClient) body(req Request) ([]byte, error) {
	m := g.c.modelInfo(req.Model)
	r := gmRequest{}
	if req.System != "" {
		r.SystemInstruction = &gmContent{Parts: []gmPart{{Text: req.System}}}
	}
	gemini3 := strings.Contains(strings.ToLower(req.Model), "gemini-3")
	for _, msg := range req.Messages {
		role := "user"
		var parts []gmPart
		for _, p := range msg.Parts {
			switch {
			case p.Type == PartText && p.Text != "" && msg.Role != RoleTool:
				parts = append(parts, gmPart{Text: p.Text})
			case p.Type == PartToolCall && msg.Role == RoleAssistant:
				sig := p.Signature
				if sig == "" && gemini3 {
					sig = skipSignature
				}
				parts = append(parts, gmPart{FunctionCall: &gmFunctionCall{Name: p.ToolName, Args: argsObject(p.Arguments)}, ThoughtSignature: sig})
			case p.Type == PartToolResult:
				resp := map[string]string{"output": p.Text}
				if p.IsError {
					resp = map[string]string{"error": p.Text}
				}
				parts = append(parts, gmPart{FunctionResponse: &gmFunctionResponse{Name: p.ToolName, Response: resp}})
			}
			// Thinking is not sent back: Gemini keeps its reasoning in
			// the signatures of the parts that follow it.
		}
		if msg.Role == RoleAssistant {
			role = "model"
		}
		if len(parts) == 0 {
			continue
		}
		// Function responses travel as a user turn; consecutive turns of
		// one role are merged.
		if n := len(r.Contents); n > 0 && r.Contents[n-1].Role == role {
			r.Contents[n-1].Parts = append(r.Contents[n-1].Parts, parts...)
			continue
		}
		r.Contents = append(r.Contents, gmContent{Role: role, Parts: parts})
	}
	if len(req.Tools) > 0 {
		var decls []gmFunctionDeclaration
		for _, t := range req.Tools {
			s, err := toolSchema(g.c, t)
			if err != nil {
				return nil, err
			}
			decls = append(decls, gmFunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJSONSchema: s})
		}
		r.Tools = []gmTools{{FunctionDeclarations: decls}}
	}
	gen := &gmGeneration{MaxOutputTokens: req.MaxTokens}
	if gen.MaxOutputTokens <= 0 {
		gen.MaxOutputTokens = m.MaxTokens
	}
	if m.Reasoning {
		level := g.c.level(req, m)
		if budget, named, ok := geminiThinking(m, level); ok {
			tc := &gmThinkingConfig{IncludeThoughts: level != ThinkingOff, ThinkingLevel: named}
			if named == "" {
				tc.ThinkingBudget = &budget
			}
			gen.ThinkingConfig = tc
		}
	}
	if gen.MaxOutputTokens > 0 || gen.ThinkingConfig != nil {
		r.GenerationConfig = gen
	}
	return json.Marshal(r)
}

// Stream implements Client.
func (g *googleClient) Stream(ctx context.Context, req Request, onEvent func(Event)) (Result, error) {
	if req.Model == "" {
		return Result{StopReason: StopError}, g.c.errorf(ErrNoModel, 0, "the request names no model", "choose one with --model PROVIDER/ID", nil)
	}
	body, err := g.body(req)
	if err != nil {
		return Result{StopReason: StopError}, err
	}
	// The model goes in the path; the key goes in a header, never in the
	// URL, so no error that quotes the URL can show it.
	endpoint := g.c.baseURL + "/models/" + url.PathEscape(strings.TrimPrefix(req.Model, "models/")) + ":streamGenerateContent?alt=sse"
	return g.c.runAt(ctx, endpoint, req.Model, body, func(st *state) decoder { return &gmDecoder{st: st} }, onEvent)
}

// gmChunk is one streamed GenerateContentResponse.
type gmChunk struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text             *string `json:"text"`
				Thought          bool    `json:"thought"`
				ThoughtSignature string  `json:"thoughtSignature"`
				FunctionCall     *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason  string `json:"finishReason"`
		FinishMessage string `json:"finishMessage"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *struct {
		PromptTokenCount        int `json:"promptTokenCount"`
		CandidatesTokenCount    int `json:"candidatesTokenCount"`
		ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
		CachedContentTokenCount int `json:"cachedContentTokenCount"`
	} `json:"usageMetadata"`
	Error json.RawMessage `json:"error"`
}

type gmDecoder struct {
	st      *state
	stopped bool // a finish reason arrived
}

func (d *gmDecoder) handle(_, data []byte) error {
	data = trimSpace(data)
	if len(data) == 0 {
		return nil
	}
	var ch gmChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return badJSON(APIGoogleGenerativeAI, err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return streamError(ch.Error)
	}
	if u := ch.UsageMetadata; u != nil {
		cached := min(max(u.CachedContentTokenCount, 0), u.PromptTokenCount)
		d.st.setUsage(Usage{InputTokens: u.PromptTokenCount - cached, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount, CacheReadTokens: cached})
	}
	if pf := ch.PromptFeedback; pf != nil && pf.BlockReason != "" && len(ch.Candidates) == 0 {
		return &Error{Kind: ErrBadRequest, Detail: "the prompt was blocked (" + pf.BlockReason + ")", Hint: "change the request"}
	}
	if len(ch.Candidates) == 0 {
		return nil
	}
	c := ch.Candidates[0]
	for _, p := range c.Content.Parts {
		switch {
		case p.FunctionCall != nil:
			i := d.st.add(PartToolCall, 1<<30)
			d.st.complete(i, p.FunctionCall.ID, p.FunctionCall.Name, p.FunctionCall.Args)
			// Gemini 3 wants the call's signature back with it.
			d.st.pieces[i].call.Signature = p.ThoughtSignature
		case p.Text != nil && *p.Text != "":
			typ, key := PartText, keyText
			if p.Thought {
				typ, key = PartThinking, keyThinking
			}
			i := len(d.st.pieces) - 1
			if i < 0 || d.st.pieces[i].key != key {
				i = d.st.add(typ, key)
			}
			d.st.appendText(i, *p.Text)
		}
	}
	switch c.FinishReason {
	case "":
	case "STOP":
		d.stopped, d.st.stop = true, StopEnd
	case "MAX_TOKENS":
		d.stopped, d.st.stop = true, StopMaxTokens
	default:
		// SAFETY, RECITATION, MALFORMED_FUNCTION_CALL and the like: the
		// answer is not what was asked for; say why.
		msg := "the model stopped: " + c.FinishReason
		if c.FinishMessage != "" {
			msg += " (" + c.FinishMessage + ")"
		}
		return &Error{Kind: ErrOther, Detail: msg, Hint: fmt.Sprintf("try again or rephrase; %s is Gemini's reason", c.FinishReason)}
	}
	return nil
}

// eof accepts the end of the stream once a finish reason arrived (Gemini
// sends no terminator of its own).
func (d *gmDecoder) eof() bool {
	if d.stopped {
		d.st.finished = true
	}
	return d.stopped
}
