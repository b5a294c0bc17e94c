package chat

import (
	"errors"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// /model: the models a session can run, offered in a menu that opens on
// the one in use; the one chosen is kept in the session
// (model_change), so resuming it uses it too. A pi session's models are
// pi's catalogue (picatalogue.go).

// picker reads models.json in a command, then offers the models; a
// pi session's are pi's catalogue (picatalogue.go).
func (t *tuner) picker() tea.Cmd {
	agentDir, env := t.agentDir, t.env
	cur, _ := t.effective()
	rts, sid, ctx, pi := t.rts, t.sid, t.ctx, t.piModelPicker()
	return func() tea.Msg {
		if engineHas(ctx, rts, sid, ownModels) {
			return pi(ctx)
		}
		reg := provider.Load(agentDir, env)
		var refs []pisettings.ModelRef
		for _, l := range reg.Usable() {
			refs = append(refs, l.ModelRef)
		}
		// The model the next prompt uses, as PROVIDER/ID: the session's
		// choice, else what its runtime runs, else the default.
		current, _ := provider.SplitThinking(cur)
		if d, err := provider.Describe(agentDir, env, cur); err == nil {
			current = d.Model.Provider + "/" + d.Model.ID
		}
		return modelsMsg{refs: refs, current: current, err: reg.Err()}
	}
}

type modelsMsg struct {
	refs    []pisettings.ModelRef
	current string // the model in use, marked in the menu
	err     error
}

func (t *tuner) showModels(refs []pisettings.ModelRef, current string, err error) tea.Cmd {
	if len(refs) == 0 {
		if err == nil {
			err = errors.New("no model is available: set an API key such as ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or add a provider to models.json")
		}
		return common.Failure(err)
	}
	rows := make([]modelRow, len(refs))
	for i, r := range refs {
		rows[i] = modelRow{spec: r.String(), label: r.String()}
	}
	return t.ui.Push(t.modelMenu(rows, current))
}

// modelRow is one model the /model menu offers: its spec and its line.
type modelRow struct{ spec, label string }

// modelMenu offers the models: the first 35 have a key each, the rest
// are reached with ↑/↓ and enter. It opens on the model in use.
func (t *tuner) modelMenu(rows []modelRow, current string) *dialog.Menu {
	keysFor := "123456789abcdefghijklmnopqrstuvwxyz"
	var items []dialog.Item
	at := 0
	for i, r := range rows {
		k, spec, label := "", r.spec, r.label
		if i < len(keysFor) {
			k = string(keysFor[i])
		}
		if spec == current {
			label += dialog.Current
			at = i
		}
		b := key.NewBinding(key.WithHelp(k, label))
		if k != "" {
			b.SetKeys(k)
		}
		items = append(items, dialog.Item{Key: b, Run: func() tea.Cmd { return t.choose(spec) }})
	}
	return dialog.NewMenu(t.ui, "Model for this session", items).Highlight(at)
}

// choose makes spec the session's model from its next prompt on.
func (t *tuner) choose(spec string) tea.Cmd {
	t.model = spec
	ss, id, ctx := t.ss, t.sid, t.ctx
	// Kept in the session, so resuming it later uses this model.
	return tea.Batch(common.Notice("model %s: from the next prompt on (model-changed)", spec), t.describe(), func() tea.Msg {
		if s, err := ss.Open(ctx, id); err == nil {
			s.Append(ctx, sessions.TypeModelChange, map[string]string{"model": spec})
		}
		return nil
	})
}
