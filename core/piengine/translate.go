package piengine

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
)

// handle maps one of pi's records onto pi-tui's events. It runs on the
// client's dispatch goroutine, in stdout order, and never waits.
func (c *core) handle(rec *Record) {
	sid := c.cfg.SessionID
	switch rec.Type {
	case "agent_start":
		c.mu.Lock()
		r := c.cur
		if r == nil {
			// A run nobody prompted (an extension's sendMessage): shown
			// all the same, start to end.
			r = &run{done: make(chan struct{})}
			c.cur = r
		}
		first := !r.started
		r.started = true
		c.mu.Unlock()
		if first {
			c.publish(events.AgentStarted{SessionID: sid})
		}
	case "message_start":
		if role(rec.Message) == "assistant" {
			c.mu.Lock()
			if r := c.cur; r != nil {
				r.streamed.Reset()
				r.messageOn = true
			}
			c.mu.Unlock()
		}
	case "message_update":
		ev := rec.AssistantMessageEvent
		if ev == nil || ev.Delta == "" {
			return
		}
		switch ev.Type {
		case "text_delta":
			c.mu.Lock()
			if r := c.cur; r != nil {
				r.streamed.WriteString(ev.Delta)
			}
			c.mu.Unlock()
			c.publish(events.TextDelta{SessionID: sid, Text: ev.Delta})
		case "thinking_delta":
			c.publish(events.ThinkingDelta{SessionID: sid, Text: ev.Delta})
		}
	case "message_end":
		c.messageEnded(rec.Message)
	case "tool_execution_start":
		var params []string
		if c.cfg.ToolParams != nil {
			params = c.cfg.ToolParams(rec.ToolName)
		}
		c.publish(events.ToolStarted{SessionID: sid, ToolCallID: rec.ToolCallID, ToolName: rec.ToolName, Args: rec.Args, Params: params})
	case "tool_execution_update":
		c.toolOutput(rec)
	case "tool_execution_end":
		c.toolEnded(rec)
	case "queue_update":
		c.mu.Lock()
		c.queued = len(rec.Steering) + len(rec.FollowUp)
		c.mu.Unlock()
		c.publish(events.QueueChanged{SessionID: sid, Steering: rec.Steering, FollowUp: rec.FollowUp})
	case "auto_retry_start":
		c.publish(events.Retrying{SessionID: sid, Attempt: rec.Attempt, MaxAttempts: rec.MaxAttempts,
			Delay: time.Duration(rec.DelayMs) * time.Millisecond, Reason: c.model().errorText(rec.ErrorMessage)})
	case "compaction_start":
		c.publish(events.CompactionStarted{SessionID: sid})
	case "compaction_end":
		c.publish(compactionEnded(sid, rec))
	case "agent_settled":
		c.mu.Lock()
		r := c.cur
		c.cur = nil
		if r != nil {
			r.aborted = rec.Aborted
		}
		c.mu.Unlock()
		if r != nil {
			c.finish(r, nil)
		}
	case "extension_error":
		c.publish(events.Notice{SessionID: sid, Level: "error", Source: rec.ExtensionPath,
			Text: "extension failed in " + orDash(rec.Event) + ": " + piText(rec.Error)})
	case "extension_ui_request":
		c.extensionUI(rec)
	case recProtocol:
		c.publish(events.Notice{SessionID: sid, Level: "warning", Source: "pi-tui", Text: rec.Error})
	case "response":
		// A response without an id: pi could not parse a command of ours.
		if !rec.Success {
			c.publish(events.Notice{SessionID: sid, Level: "warning", Source: "pi", Text: "pi: " + piText(rec.Error)})
		}
	}
	// The rest (turn_*, agent_end, entry_appended, session_info_changed,
	// thinking_level_changed, bash_execution_update, …) change nothing
	// pi-tui shows from events: the session file carries them.
}

// finish ends r: the message pi was streaming when it died, then
// AgentEnded, exactly once.
func (c *core) finish(r *run, err error) {
	c.mu.Lock()
	if r.ended {
		c.mu.Unlock()
		return
	}
	r.ended = true
	r.err = err
	streaming, streamed := r.messageOn, r.streamed.String()
	if err != nil {
		r.messageOn = false
		r.stop = provider.StopError
		r.errMsg = err.Error()
		if streamed != "" {
			r.text = streamed
		}
	}
	end := events.AgentEnded{SessionID: c.cfg.SessionID, Text: r.text, Usage: usagePtr(r.usage), StopReason: r.stop, Error: r.errMsg}
	if r.aborted {
		end.StopReason = provider.StopAborted
	}
	c.mu.Unlock()
	if err != nil && streaming {
		c.publish(events.MessageEnded{SessionID: c.cfg.SessionID, Text: streamed, StopReason: provider.StopError, Usage: &provider.Usage{}, Error: err.Error()})
	}
	if end.StopReason == "" {
		end.StopReason = provider.StopEnd
	}
	c.publish(end)
	close(r.done)
}

func usagePtr(u provider.Usage) *provider.Usage { return &u }

// piMessage is what pi-tui reads of a message_end's message.
type piMessage struct {
	Role    string `json:"role"`
	Content json.RawMessage
	Usage   *struct {
		Input      int `json:"input"`
		Output     int `json:"output"`
		CacheRead  int `json:"cacheRead"`
		CacheWrite int `json:"cacheWrite"`
	} `json:"usage"`
	StopReason   string `json:"stopReason"`
	ErrorMessage string `json:"errorMessage"`
}

func role(msg json.RawMessage) string {
	var m struct {
		Role string `json:"role"`
	}
	_ = json.Unmarshal(msg, &m)
	return m.Role
}

func (c *core) messageEnded(raw json.RawMessage) {
	var m piMessage
	if json.Unmarshal(raw, &m) != nil || m.Role != "assistant" {
		return
	}
	var u provider.Usage
	if m.Usage != nil {
		u = provider.Usage{InputTokens: m.Usage.Input, OutputTokens: m.Usage.Output, CacheReadTokens: m.Usage.CacheRead, CacheWriteTokens: m.Usage.CacheWrite}
	}
	text := textOf(m.Content)
	stop := stopReason(m.StopReason)
	errText := c.model().errorText(m.ErrorMessage)
	c.mu.Lock()
	addUsage(&c.usage, u)
	if r := c.cur; r != nil {
		addUsage(&r.usage, u)
		r.messageOn = false
		r.streamed.Reset()
		if text != "" {
			r.text = text
		}
		r.stop, r.errMsg = stop, ""
		if stop == provider.StopError {
			r.errMsg = errText
		}
	}
	c.mu.Unlock()
	end := events.MessageEnded{SessionID: c.cfg.SessionID, Text: text, StopReason: stop, Usage: &u}
	if stop == provider.StopError || stop == provider.StopAborted {
		end.Error = errText
	}
	c.publish(end)
}

func addUsage(to *provider.Usage, u provider.Usage) {
	to.InputTokens += u.InputTokens
	to.OutputTokens += u.OutputTokens
	to.CacheReadTokens += u.CacheReadTokens
	to.CacheWriteTokens += u.CacheWriteTokens
}

// stopReason maps pi's stop reasons onto pi-tui's (provider.Stop*);
// one pi-tui does not know passes as it is.
func stopReason(s string) string {
	switch s {
	case "stop":
		return provider.StopEnd
	case "toolUse":
		return provider.StopToolUse
	case "length":
		return provider.StopMaxTokens
	case "aborted":
		return provider.StopAborted
	case "error":
		return provider.StopError
	}
	return s
}

// textOf is the text of a message's content: a string, or the text parts
// of a list of blocks.
func textOf(content json.RawMessage) string {
	if len(content) == 0 {
		return ""
	}
	if content[0] == '"' {
		var s string
		_ = json.Unmarshal(content, &s)
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(content, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// resultText is the text of a tool's (partial) result {content:[…]}.
func resultText(raw json.RawMessage) string {
	var r struct {
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(raw, &r)
	return textOf(r.Content)
}

// toolOutput passes on what a running tool printed since its last
// update: pi's partial results repeat the output so far, pi-tui's
// ToolOutput carries only the new part.
func (c *core) toolOutput(rec *Record) {
	text := resultText(rec.PartialResult)
	c.mu.Lock()
	prev := c.partial[rec.ToolCallID]
	c.partial[rec.ToolCallID] = text
	c.mu.Unlock()
	delta := text
	if strings.HasPrefix(text, prev) {
		delta = text[len(prev):]
	}
	if delta == "" {
		return
	}
	c.publish(events.ToolOutput{SessionID: c.cfg.SessionID, ToolCallID: rec.ToolCallID, ToolName: rec.ToolName, Text: delta})
}

func (c *core) toolEnded(rec *Record) {
	c.mu.Lock()
	delete(c.partial, rec.ToolCallID)
	c.mu.Unlock()
	end := events.ToolEnded{SessionID: c.cfg.SessionID, ToolCallID: rec.ToolCallID, ToolName: rec.ToolName,
		IsError: rec.IsError, Result: resultText(rec.Result), ToolMs: rec.DurationMs}
	if c.cfg.ToolInfo != nil {
		end.Preflight, end.Delivery, end.Path = c.cfg.ToolInfo(rec.ToolCallID)
	}
	c.publish(end)
}

func compactionEnded(sid string, rec *Record) events.CompactionEnded {
	var res struct {
		Summary string `json:"summary"`
	}
	_ = json.Unmarshal(rec.Result, &res)
	end := events.CompactionEnded{SessionID: sid, Summary: res.Summary}
	switch {
	case rec.ErrorMessage != "":
		// pi says "Compaction failed: Nothing to compact (…)": the
		// compaction's notice says that it failed.
		end.Error = piText(strings.TrimPrefix(strings.TrimSpace(rec.ErrorMessage), "Compaction failed: "))
	case rec.Aborted:
		end.Error = "compaction aborted"
	case res.Summary == "":
		end.Error = "compaction produced no summary"
	}
	return end
}

// oneLine shows s on one line, control characters escaped.
func oneLine(s string) string { return printable([]byte(strings.TrimSpace(s)), 1000) }

// model is the model pi runs, as get_state said at the start.
func (c *core) model() model {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mod
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
