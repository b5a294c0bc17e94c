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

// describe finds out, in a command (it reads models.json and
// settings.json), the model's levels and the level in effect.
func (t *tuner) describe() tea.Cmd {
	if t.sid == "" {
		return nil
	}
	agentDir, env, sid, spec := t.agentDir, t.env, t.sid, t.spec()
	rts, pi, ctx := t.rts, t.pi, t.ctx
	return func() tea.Msg {
		if engineHas(ctx, rts, sid, ownThinking) {
			d, err := piDescribe(ctx, pi, rts.State(sid).Model, sid, spec)
			return describedMsg{sid: sid, spec: spec, d: d, err: err}
		}
		d, err := provider.Describe(agentDir, env, spec)
		return describedMsg{sid: sid, spec: spec, d: d, err: err}
	}
}

func (t *tuner) described(msg describedMsg) {
	if msg.sid != t.sid || msg.spec != t.spec() {
		return // the session or its choice moved on since
	}
	if msg.err != nil {
		t.think = thinkState{known: true, spec: msg.spec, err: msg.err.Error()}
		return
	}
	t.think = thinkState{known: true, spec: msg.spec, level: msg.d.Model.Thinking, levels: msg.d.Levels, reasoning: msg.d.Model.Reasoning}
}

// text is the state line's part about thinking.
func (t *tuner) text() string {
	switch {
	case !t.think.known || t.think.err != "":
		if t.level != "" {
			return "thinking " + t.level
		}
		return ""
	case !t.think.reasoning:
		return "thinking off (model)"
	}
	return "thinking " + t.think.level
}

// cycle moves to the model's next thinking level.
func (t *tuner) cycle() tea.Cmd {
	switch {
	case t.think.err != "":
		return common.Failure(fmt.Errorf("%s", t.think.err))
	case len(t.think.levels) == 0:
		return common.Notice("the model's thinking levels are not known yet; press shift+tab again in a moment")
	case len(t.think.levels) == 1:
		return common.Notice("this model does not think: thinking stays %s", t.think.levels[0])
	}
	return t.setThinking(provider.NextThinking(t.think.levels, t.think.level))
}

// command is /thinking: with a level, set it; without, pick one.
func (t *tuner) command(arg string) tea.Cmd {
	if arg != "" {
		l, err := provider.ParseThinkingLevel(arg)
		if err != nil {
			return common.Failure(err)
		}
		return t.setThinking(l)
	}
	levels := t.think.levels
	if len(levels) == 0 {
		levels = provider.ThinkingLevelNames()
	}
	var items []dialog.Item
	at := 0
	for i, l := range levels {
		k, label := fmt.Sprint(i+1), l
		if l == t.think.level {
			label += dialog.Current
			at = i
		}
		items = append(items, dialog.Item{Key: key.NewBinding(key.WithKeys(k), key.WithHelp(k, label)), Run: func() tea.Cmd { return t.setThinking(l) }})
	}
	return t.ui.Push(dialog.NewMenu(t.ui, "Thinking level for this session", items).Highlight(at))
}

// setThinking chooses a level for the session (clamped to what the model
// supports) and records it in the session, so resuming it keeps it. It
// applies from the next prompt (thinking-changed): in place on an engine
// that can (pi), else by a new runtime.
func (t *tuner) setThinking(want string) tea.Cmd {
	l := want
	if len(t.think.levels) > 0 && t.think.err == "" {
		l = provider.ClampThinking(t.think.levels, want)
	}
	t.level = l
	if t.think.err == "" && len(t.think.levels) > 0 {
		t.think.spec, t.think.level = t.spec(), l
	}
	note := "thinking " + l + ": from the next prompt on (thinking-changed)"
	if l != want {
		note = fmt.Sprintf("thinking %s (the model has no %s): from the next prompt on (thinking-changed)", l, want)
	}
	ss, id, ctx := t.ss, t.sid, t.ctx
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
	return tea.Batch(common.Notice("%s", note), record, t.describe())
}
