package chat

import (
	"encoding/json"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// ThinkingLevelChange is the kind of the custom session entry that
// records a thinking level chosen in the session (pi records it as a
// thinking_level_change entry; sessions kept in pi's files will write
// that). Custom entries are never sent to the model.
const ThinkingLevelChange = "thinking_level_change"

// thinkingRecord is the payload of that entry.
type thinkingRecord struct {
	Kind          string `json:"kind"`
	ThinkingLevel string `json:"thinkingLevel"`
}

// levelOf returns the thinking level chosen last on the session's branch
// ("" = the default).
func levelOf(entries []sessions.Entry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Type != sessions.TypeCustom {
			continue
		}
		var r thinkingRecord
		if json.Unmarshal(entries[i].Payload(), &r) == nil && r.Kind == ThinkingLevelChange {
			if l, err := provider.ParseThinkingLevel(r.ThinkingLevel); err == nil {
				return l
			}
		}
	}
	return ""
}

// modelOf returns the model chosen last in the session ("" = default).
func modelOf(entries []sessions.Entry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Type == sessions.TypeModelChange {
			var v struct {
				Model string `json:"model"`
			}
			if json.Unmarshal(entries[i].Payload(), &v) == nil {
				return v.Model
			}
		}
	}
	return ""
}

// thinkState is what the chat knows about thinking for the session's
// model: the level in effect and the levels the model supports.
type thinkState struct {
	known     bool   // Describe answered for spec
	spec      string // the model spec it was found for
	level     string
	levels    []string
	reasoning bool
	err       string
}

type describedMsg struct {
	sid, spec string
	d         provider.Description
	err       error
}

// spec is the model spec prompts use: the session's model and level.
func (m *Model) spec() string { return provider.WithThinking(m.model, m.level) }

// describe finds out, in a command (it reads models.json and
// settings.json), the model's levels and the level in effect.
func (m *Model) describe() tea.Cmd {
	if m.sid == "" {
		return nil
	}
	agentDir, env, sid, spec := m.d.Host.Places.AgentDir, m.d.Env, m.sid, m.spec()
	rts, pi, ctx := m.d.Runtime, m.d.Catalogue, m.ctx
	return func() tea.Msg {
		if engineHas(ctx, rts, sid, ownThinking) {
			d, err := piDescribe(ctx, pi, rts.State(sid).Model, sid, spec)
			return describedMsg{sid: sid, spec: spec, d: d, err: err}
		}
		d, err := provider.Describe(agentDir, env, spec)
		return describedMsg{sid: sid, spec: spec, d: d, err: err}
	}
}

func (m *Model) described(msg describedMsg) {
	if msg.sid != m.sid || msg.spec != m.spec() {
		return // the session or its choice moved on since
	}
	if msg.err != nil {
		m.think = thinkState{known: true, spec: msg.spec, err: msg.err.Error()}
		return
	}
	m.think = thinkState{known: true, spec: msg.spec, level: msg.d.Model.Thinking, levels: msg.d.Levels, reasoning: msg.d.Model.Reasoning}
}

// thinkingText is the state line's part about thinking.
func (m *Model) thinkingText() string {
	switch {
	case !m.think.known || m.think.err != "":
		if m.level != "" {
			return "thinking " + m.level
		}
		return ""
	case !m.think.reasoning:
		return "thinking off (model)"
	}
	return "thinking " + m.think.level
}

// ClaimsKey reports whether the open chat takes a key the shell would
// otherwise use: shift+tab cycles the thinking level, as it does in pi.
func (m *Model) ClaimsKey(msg tea.KeyMsg) bool { return key.Matches(msg, m.keys.Level) }

// cycleThinking moves to the model's next thinking level.
func (m *Model) cycleThinking() tea.Cmd {
	switch {
	case m.think.err != "":
		return common.Failure(fmt.Errorf("%s", m.think.err))
	case len(m.think.levels) == 0:
		return common.Notice("the model's thinking levels are not known yet; press shift+tab again in a moment")
	case len(m.think.levels) == 1:
		return common.Notice("this model does not think: thinking stays %s", m.think.levels[0])
	}
	return m.setThinking(provider.NextThinking(m.think.levels, m.think.level))
}

// thinkingCommand is /thinking: with a level, set it; without, pick one.
func (m *Model) thinkingCommand(arg string) tea.Cmd {
	if arg != "" {
		l, err := provider.ParseThinkingLevel(arg)
		if err != nil {
			return common.Failure(err)
		}
		return m.setThinking(l)
	}
	levels := m.think.levels
	if len(levels) == 0 {
		levels = provider.ThinkingLevelNames()
	}
	var items []dialog.Item
	at := 0
	for i, l := range levels {
		k, label := fmt.Sprint(i+1), l
		if l == m.think.level {
			label += dialog.Current
			at = i
		}
		items = append(items, dialog.Item{Key: key.NewBinding(key.WithKeys(k), key.WithHelp(k, label)), Run: func() tea.Cmd { return m.setThinking(l) }})
	}
	return m.d.UI.Push(dialog.NewMenu(m.d.UI, "Thinking level for this session", items).Highlight(at))
}

// setThinking chooses a level for the session (clamped to what the model
// supports) and records it in the session, so resuming it keeps it. It
// applies from the next prompt (thinking-changed): in place on an engine
// that can (pi), else by a new runtime.
func (m *Model) setThinking(want string) tea.Cmd {
	l := want
	if len(m.think.levels) > 0 && m.think.err == "" {
		l = provider.ClampThinking(m.think.levels, want)
	}
	m.level = l
	if m.think.err == "" && len(m.think.levels) > 0 {
		m.think.spec, m.think.level = m.spec(), l
	}
	note := "thinking " + l + ": from the next prompt on (thinking-changed)"
	if l != want {
		note = fmt.Sprintf("thinking %s (the model has no %s): from the next prompt on (thinking-changed)", l, want)
	}
	ss, id, ctx := m.d.Sessions, m.sid, m.ctx
	record := func() tea.Msg {
		s, err := ss.Open(ctx, id)
		if err == nil {
			_, err = s.Append(ctx, sessions.TypeCustom, thinkingRecord{Kind: ThinkingLevelChange, ThinkingLevel: l})
		}
		if err != nil {
			return common.NoticeMsg{Text: "the thinking level applies, but it could not be saved in the session: " + err.Error(), Error: true}
		}
		return nil
	}
	return tea.Batch(common.Notice("%s", note), record, m.describe())
}
