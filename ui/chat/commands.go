package chat

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/skills"
	"github.com/pi-tui/pi-tui/ui/common"
)

// The chat input's slash commands: pi-tui's own (/compact, /tree, …) and
// the skills (/skill:name) and prompt templates (/name) pi-tui finds where
// pi finds them. While the input holds a command name being typed, the
// matching commands show in the completion menu (complete.go) with their
// argument hints and descriptions. On enter a skill or template is
// expanded exactly as pi expands it and sent.

// builtins returns the chat's own commands, offered first.
func builtins() []skills.Command {
	return []skills.Command{
		{Name: "compact", Description: "summarise the session so far to free context", ArgumentHint: "[instructions]"},
		{Name: "tree", Description: "every branch of the session: continue from any entry (the old branch stays)"},
		{Name: "fork", Description: "a new session from an entry of this one (this one is unchanged)"},
		{Name: "name", Description: "name the session", ArgumentHint: "NAME"},
		{Name: "new", Description: "start a new session"},
		{Name: "worktree", Description: "start a new session in a git worktree of its own (branch pi/<id>)"},
		{Name: "model", Description: "switch this session's model"},
		{Name: "thinking", Description: "set this session's thinking level (off … xhigh), or pick one", ArgumentHint: "[level]"},
		{Name: "context", Description: "show the system prompt and tools the model is sent"},
		{Name: "export", Description: "write this session to share: an HTML page (or .md, .jsonl) in the project folder", ArgumentHint: "[FILE]"},
		{Name: "changes", Description: "the session's file changes, in order: diffs, undo and redo"},
		{Name: "undo", Description: "put the files the agent changed since your last message back as they were"},
		{Name: "undo-memory", Description: "undo the agent's last change to the project memory in this session"},
		{Name: "plan", Description: "plan mode on or off: the agent only reads, then answers with a plan to run or refine (with a message: on, and send it)", ArgumentHint: "[message]"},
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

// commandsMsg carries a session's skills and templates (a pi session's:
// pi's commands, picatalogue.go).
type commandsMsg struct {
	sid  string
	cmds []skills.Command
	warn []string
	// shadowed are pi's commands the chat's own hide (name → what pi has
	// under it); piErr says why pi's commands could not be listed.
	shadowed map[string]string
	piErr    string
}

// expandedMsg carries a typed /command as the model will receive it.
type expandedMsg struct {
	sid, typed, text string
	err              error
	verbatim         bool // a pi command: sent as typed, pi expands it
}

// loadCommands reads the session's skills and templates (the files may
// have changed since the last look) in a command.
func (in *composer) loadCommands() tea.Cmd {
	if in.sid == "" {
		return nil
	}
	rts, pi, sid, ctx := in.rts, in.pi, in.sid, in.ctx
	return func() tea.Msg {
		if engineHas(ctx, rts, sid, ownCommands) {
			return piCommandsMsg(ctx, rts, pi, sid)
		}
		set, err := rts.Commands(ctx, sid)
		if err != nil {
			return commandsMsg{sid: sid, warn: []string{err.Error()}}
		}
		return commandsMsg{sid: sid, cmds: set.Commands(), warn: set.Warnings}
	}
}

// updateCommands handles the messages of a message on its way: its
// /command expanded, its @files attached.
func (m *Model) updateCommands(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case attachedMsg:
		return m.attached(msg), true
	case expandedMsg:
		if msg.sid != m.sid {
			return nil, true
		}
		switch {
		case msg.err != nil:
			m.in.restore(msg.typed)
			return common.Failure(msg.err), true
		case msg.text == msg.typed && !msg.verbatim:
			m.in.restore(msg.typed)
			name, _, _ := strings.Cut(strings.TrimPrefix(msg.typed, "/"), " ")
			return common.Failure(fmt.Errorf("unknown command /%s: /compact, /tree, /new, /model, /thinking, /context, /changes, /undo, /plan, /export, or a skill or prompt template (type / to see them)", firstLine(name))), true
		case m.inTurn():
			m.queue = append(m.queue, msg.text)
			return common.Notice("%s", noticeQueued), true
		}
		return m.send(msg.text), true
	}
	return nil, false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return common.VisibleLine(line)
}

// callCommand expands a skill or template call off the UI goroutine (a
// pi session's command goes to pi as typed).
func (in *composer) callCommand(text string) tea.Cmd {
	rts, pi, sid, ctx := in.rts, in.pi, in.sid, in.ctx
	return func() tea.Msg {
		if engineHas(ctx, rts, sid, ownCommands) {
			return piCommand(ctx, pi, sid, text)
		}
		out, err := rts.Expand(ctx, sid, text)
		return expandedMsg{sid: sid, typed: text, text: out, err: err}
	}
}

// typedName is the command name being typed: the input is "/" and then
// no white space yet.
func (in *composer) typedName() (string, bool) {
	v := in.input.Value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \t\n") {
		return "", false
	}
	return v[1:], true
}

// rankCommands orders the commands matching typed: the name itself, then
// names starting with it, holding it, then holding its letters in order;
// within each, the chat's own commands first, as listed.
func rankCommands(cmds []skills.Command, typed string) []skills.Command {
	t := strings.ToLower(typed)
	var bands [4][]skills.Command
	for _, c := range cmds {
		n := strings.ToLower(c.Name)
		switch {
		case n == t:
			bands[0] = append(bands[0], c)
		case strings.HasPrefix(n, t):
			bands[1] = append(bands[1], c)
		case strings.Contains(n, t):
			bands[2] = append(bands[2], c)
		case subsequence(n, t):
			bands[3] = append(bands[3], c)
		}
	}
	return slices.Concat(bands[:]...)
}

// subsequence reports whether t's letters appear in n in order.
func subsequence(n, t string) bool {
	for _, r := range t {
		i := strings.IndexRune(n, r)
		if i < 0 {
			return false
		}
		n = n[i+utf8.RuneLen(r):]
	}
	return true
}

// afterInput refreshes the menu after a key changed the input, and
// reloads the commands when a fresh "/" is typed: skill and template
// files may have changed since the last look.
func (in *composer) afterInput(before string) tea.Cmd {
	after := in.input.Value()
	if after == before {
		return nil
	}
	var load tea.Cmd
	if after == "/" {
		load = in.loadCommands()
	}
	return tea.Batch(load, in.refreshMenu())
}

// Completing reports whether the completion menu is open (the shell then
// leaves tab to the chat instead of switching tabs).
func (m *Model) Completing() bool { return m.in.open() }

// command runs a slash command typed in the input.
func (m *Model) command(text string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	if !isBuiltin(name) {
		return m.in.callCommand(text) // a skill or a prompt template
	}
	if m.inTurn() && name != "model" && name != "thinking" && name != "changes" && name != "export" {
		return common.Failure(fmt.Errorf("/%s waits until the agent is done (esc aborts it)", name))
	}
	switch name {
	case "compact":
		m.turn, m.failed = turnCompact, ""
		rts, id, model, ctx := m.d.Runtime, m.sid, m.tune.spec(), m.ctx
		return m.call(func() tea.Msg {
			rts.Compact(ctx, id, model, strings.TrimSpace(arg)) // its compaction_end says how it ended
			return nil
		})
	case "new":
		return m.New()
	case "worktree":
		return m.NewInWorktree()
	case "tree":
		return m.treePicker(false)
	case "fork":
		return m.treePicker(true)
	case "name":
		return m.rename(strings.TrimSpace(arg))
	case "model":
		return m.tune.picker()
	case "thinking":
		return m.tune.command(strings.TrimSpace(arg))
	case "context":
		return m.inspect()
	case "undo-memory":
		return m.undoMemory()
	case "export":
		return m.export(arg)
	case "changes":
		return m.review.open()
	case "undo":
		return m.review.undoLastTurn()
	case "plan":
		return m.planCommand(arg)
	}
	return common.Failure(fmt.Errorf("unknown command /%s: /compact, /tree, /new, /model, /thinking, /context, /changes, /undo, /plan, /export", name))
}
