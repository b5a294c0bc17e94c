package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/skills"
	"github.com/pi-tui/pi-tui/ui/common"
)

// The chat input's slash commands: pi-tui's own (/compact, /tree, …) and
// the skills (/skill:name) and prompt templates (/name) pi-tui finds where
// pi finds them. While the input holds a command name being typed, the
// matching commands show above it with their descriptions, and tab
// completes the first (highlighted) one; typing more letters narrows the
// list. On enter a skill or template is expanded exactly as pi expands it
// and sent.

// builtins returns the chat's own commands, offered first.
func builtins() []skills.Command {
	return []skills.Command{
		{Name: "compact", Description: "summarise the session so far to free context", ArgumentHint: "[instructions]"},
		{Name: "tree", Description: "every branch of the session: continue from any entry (the old branch stays)"},
		{Name: "fork", Description: "a new session from an entry of this one (this one is unchanged)"},
		{Name: "name", Description: "name the session", ArgumentHint: "NAME"},
		{Name: "new", Description: "start a new session"},
		{Name: "model", Description: "switch this session's model"},
		{Name: "thinking", Description: "set this session's thinking level (off … xhigh), or pick one", ArgumentHint: "[level]"},
		{Name: "context", Description: "show the system prompt's sections and sizes"},
		{Name: "undo-memory", Description: "undo the agent's last change to the project memory in this session"},
	}
}

func isBuiltin(name string) bool {
	for _, b := range builtins() {
		if b.Name == name {
			return true
		}
	}
	return false
}

// maxSuggestions bounds the lines the menu takes from the transcript (at
// most half of it).
const maxSuggestions = 10

// completeKey completes the highlighted command; it is data, so the help
// shows the same key the handler uses.
var completeKey = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete /command"))

// commandsMsg carries a session's skills and templates.
type commandsMsg struct {
	sid  string
	cmds []skills.Command
	warn []string
}

// expandedMsg carries a typed /command as the model will receive it.
type expandedMsg struct {
	sid, typed, text string
	err              error
}

// loadCommands reads the session's skills and templates (the files may
// have changed since the last look) in a command.
func (m *Model) loadCommands() tea.Cmd {
	if m.sid == "" {
		return nil
	}
	rts, sid := m.d.Runtimes, m.sid
	return func() tea.Msg {
		set, err := rts.Commands(context.Background(), sid)
		if err != nil {
			return commandsMsg{sid: sid, warn: []string{err.Error()}}
		}
		return commandsMsg{sid: sid, cmds: set.Commands(), warn: set.Warnings}
	}
}

// updateCommands handles the messages of this file.
func (m *Model) updateCommands(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case commandsMsg:
		if msg.sid == m.sid {
			m.cmds, m.cmdWarn = msg.cmds, msg.warn
		}
		return nil, true
	case expandedMsg:
		if msg.sid != m.sid {
			return nil, true
		}
		switch {
		case msg.err != nil:
			m.restoreInput(msg.typed)
			return common.Failure(msg.err), true
		case msg.text == msg.typed:
			m.restoreInput(msg.typed)
			name, _, _ := strings.Cut(strings.TrimPrefix(msg.typed, "/"), " ")
			return common.Failure(fmt.Errorf("unknown command /%s: /compact, /tree, /new, /model, /thinking, /context, or a skill or prompt template (type / to see them)", firstLine(name))), true
		case m.working:
			m.queue = append(m.queue, msg.text)
			return common.Notice("queued: sent when the agent is done"), true
		}
		return m.send(msg.text), true
	}
	return nil, false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return common.VisibleLine(line)
}

// restoreInput puts back what the user typed when it could not be sent,
// unless they have typed something new meanwhile.
func (m *Model) restoreInput(text string) {
	if m.input.Len() == 0 {
		m.input.Insert(text)
		m.input.SetSize(m.width, m.inputHeight())
	}
}

// callCommand expands a skill or template call off the UI goroutine.
func (m *Model) callCommand(text string) tea.Cmd {
	rts, sid := m.d.Runtimes, m.sid
	return func() tea.Msg {
		out, err := rts.Expand(context.Background(), sid, text)
		return expandedMsg{sid: sid, typed: text, text: out, err: err}
	}
}

// typedName is the command name being typed: the input is "/" and then
// no white space yet.
func (m *Model) typedName() (string, bool) {
	v := m.input.Value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \t\n") {
		return "", false
	}
	return v[1:], true
}

// suggestions are the commands whose names start with what is typed.
func (m *Model) suggestions() []skills.Command {
	typed, ok := m.typedName()
	if !ok {
		return nil
	}
	var out []skills.Command
	for _, c := range append(builtins(), m.cmds...) {
		if strings.HasPrefix(c.Name, typed) {
			out = append(out, c)
		}
	}
	return out
}

// completionKey handles tab while a command name is typed: it completes
// the first suggestion, ready for its arguments.
func (m *Model) completionKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if !key.Matches(msg, completeKey) {
		return nil, false
	}
	if _, ok := m.typedName(); !ok {
		return nil, false
	}
	sug := m.suggestions()
	if len(sug) == 0 {
		return common.Notice("no command starts with %q", m.input.Value()), true
	}
	m.input.SetValue("")
	m.input.Insert("/" + sug[0].Name + " ") // the cursor ends after it
	return nil, true
}

// afterInput reloads the commands when a fresh "/" is typed: skill and
// template files may have changed since the last look.
func (m *Model) afterInput(before string) tea.Cmd {
	if after := m.input.Value(); after == "/" && before != "/" {
		return m.loadCommands()
	}
	return nil
}

// suggestionLines draws the menu: name, argument hint, description.
func (m *Model) suggestionLines() []string {
	sug := m.suggestions()
	if len(sug) == 0 {
		return nil
	}
	st := m.d.UI
	limit := max(min(maxSuggestions, m.transcriptHeight()/2), 3)
	var out []string
	for i, c := range sug {
		if len(out) == limit-1 && len(sug) > limit {
			out = append(out, st.Dim.Render(fmt.Sprintf("  … %d more (keep typing)", len(sug)-i)))
			break
		}
		name := "/" + common.VisibleLine(c.Name)
		if c.ArgumentHint != "" {
			name += " " + common.VisibleLine(c.ArgumentHint)
		}
		line := fmt.Sprintf("  %-24s %s", name, common.VisibleLine(c.Description))
		line = ansi.Truncate(line, max(m.width, 10), "…")
		if i == 0 {
			out = append(out, st.Selected.Render(line))
		} else {
			out = append(out, line)
		}
	}
	if len(m.cmdWarn) > 0 {
		out = append(out, st.Warn.Render(ansi.Truncate(fmt.Sprintf("  ! %d skill or template file(s) skipped: %s", len(m.cmdWarn), common.VisibleLine(m.cmdWarn[0])), max(m.width, 10), "…")))
	}
	return out
}

// Completing reports whether tab completes a /command now (the shell
// then leaves tab to the chat instead of switching tabs).
func (m *Model) Completing() bool {
	_, ok := m.typedName()
	return m.sid != "" && ok
}

// command runs a slash command typed in the input.
func (m *Model) command(text string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	if !isBuiltin(name) {
		return m.callCommand(text) // a skill or a prompt template
	}
	if m.working && name != "model" && name != "thinking" {
		return common.Failure(fmt.Errorf("/%s waits until the agent is done (esc aborts it)", name))
	}
	switch name {
	case "compact":
		m.working = true
		rts, id, model, ctx := m.d.Runtimes, m.sid, m.spec(), m.ctx
		return func() tea.Msg {
			_, err := rts.Compact(ctx, id, model, strings.TrimSpace(arg))
			return promptDoneMsg{id: id, err: err}
		}
	case "new":
		return m.newSession()
	case "tree":
		return m.treePicker(false)
	case "fork":
		return m.treePicker(true)
	case "name":
		return m.rename(strings.TrimSpace(arg))
	case "model":
		return m.modelPicker()
	case "thinking":
		return m.thinkingCommand(strings.TrimSpace(arg))
	case "context":
		return m.inspect()
	case "undo-memory":
		return m.undoMemory()
	}
	return common.Failure(fmt.Errorf("unknown command /%s: /compact, /tree, /new, /model, /thinking, /context", name))
}
