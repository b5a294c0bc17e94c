package session

import (
	"context"
	"errors"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/provider"
	coresession "github.com/pi-tui/pi-tui/core/session"
	coresettings "github.com/pi-tui/pi-tui/core/settings"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// treePicker loads the session's path (a store read when no runtime
// holds it) in a command, then offers its user messages.
func (m *Model) treePicker() tea.Cmd {
	rts, id := m.d.Runtimes, m.sid
	return func() tea.Msg {
		s, err := rts.Session(context.Background(), id)
		if err != nil {
			return common.NoticeMsg{Text: err.Error(), Error: true}
		}
		return treeMsg{path: s.Path()}
	}
}

type treeMsg struct{ path []coresession.Entry }

func (m *Model) showTree(path []coresession.Entry) tea.Cmd {
	var users []coresession.Entry
	for _, e := range path {
		if e.Type == coresession.TypeUser {
			users = append(users, e)
		}
	}
	if len(users) == 0 {
		return common.Notice("no messages to branch from yet")
	}
	if len(users) > 35 {
		users = users[len(users)-35:]
	}
	keysFor := "123456789abcdefghijklmnopqrstuvwxyz"
	var items []dialog.Item
	for i := range users {
		it := &item{kind: kindUser, entry: &users[i]}
		it.decode()
		label := common.VisibleLine(it.text)
		if r := []rune(label); len(r) > 50 {
			label = string(r[:49]) + "…"
		}
		k := string(keysFor[i])
		entry := users[i]
		items = append(items, dialog.Item{Key: key.NewBinding(key.WithKeys(k), key.WithHelp(k, label)), Run: func() tea.Cmd {
			return m.branchTo(entry, it.text)
		}})
	}
	return m.d.UI.Push(dialog.NewMenu(m.d.UI, "Branch: continue from before which message?", items))
}

// branchTo moves the leaf to just before a user message and puts that
// message in the input to edit and send again; the old branch stays.
func (m *Model) branchTo(e coresession.Entry, text string) tea.Cmd {
	rts, id := m.d.Runtimes, m.sid
	m.input.SetValue(text)
	m.input.fit(m.width, m.height)
	return func() tea.Msg {
		if err := rts.Branch(context.Background(), id, e.ParentID); err != nil {
			return openedMsg{err: err}
		}
		s, err := rts.Session(context.Background(), id)
		if err != nil {
			return openedMsg{err: err}
		}
		return branchedMsg{entries: s.Path()}
	}
}

type branchedMsg struct{ entries []coresession.Entry }

// modelPicker reads models.json in a command, then offers the models.
func (m *Model) modelPicker() tea.Cmd {
	agentDir, env := m.d.Host.Places.AgentDir, m.d.Env
	return func() tea.Msg {
		reg := provider.Load(agentDir, env)
		var refs []coresettings.ModelRef
		for _, l := range reg.Usable() {
			refs = append(refs, l.ModelRef)
		}
		return modelsMsg{refs: refs, err: reg.Err()}
	}
}

type modelsMsg struct {
	refs []coresettings.ModelRef
	err  error
}

func (m *Model) showModels(refs []coresettings.ModelRef, err error) tea.Cmd {
	if len(refs) == 0 {
		if err == nil {
			err = errors.New("no model is available: set an API key such as ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or add a provider to models.json")
		}
		return common.Failure(err)
	}
	keysFor := "123456789abcdefghijklmnopqrstuvwxyz"
	var items []dialog.Item
	for i, r := range refs {
		if i >= len(keysFor) {
			break
		}
		k, spec := string(keysFor[i]), r.String()
		items = append(items, dialog.Item{Key: key.NewBinding(key.WithKeys(k), key.WithHelp(k, spec)), Run: func() tea.Cmd {
			m.model = spec
			rts, id := m.d.Runtimes, m.sid
			// Kept in the session, so resuming it later uses this model.
			return tea.Batch(common.Notice("model %s: the runtime restarts (model-changed) at the next prompt", spec), m.describe(), func() tea.Msg {
				if s, err := rts.Session(context.Background(), id); err == nil {
					s.Append(context.Background(), coresession.TypeModelChange, map[string]string{"model": spec})
				}
				return nil
			})
		}})
	}
	return m.d.UI.Push(dialog.NewMenu(m.d.UI, "Model for this session", items))
}

func (m *Model) inspect() tea.Cmd {
	rts, id, model := m.d.Runtimes, m.sid, m.spec()
	return func() tea.Msg {
		in, err := rts.Inspect(context.Background(), id, model)
		if err != nil {
			return common.NoticeMsg{Text: err.Error(), Error: true}
		}
		return common.PushMsg{Layer: newInspector(m.d.UI, in)}
	}
}

// HandleBranched applies a branch picked with /tree.
func (m *Model) handleBranched(msg branchedMsg) {
	m.items = itemsFrom(msg.entries)
	m.bottom = 0
}
