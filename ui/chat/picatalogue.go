package chat

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/core/skills"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Sessions on an engine with commands, models or thinking levels of its
// own (engine.Capabilities: pi's) take their "/" menu, /model list and
// thinking levels from it (pi's catalogue, core/runtimes.Catalogue): pi's extension commands, prompt templates and skills,
// merged with the chat's own commands (which win on a name both have,
// saying so); every model pi can run, its logins included; the levels pi
// offers for the model it runs. A pi command is sent as typed, and pi
// runs or expands it. Sessions on the built-in engine keep pi-tui's own
// lists.

// engineHas reports whether the engine the session runs on (or would
// launch on) has the capability has picks.
func engineHas(ctx context.Context, rts engineOf, sid string, has func(engine.Capabilities) bool) bool {
	d, err := rts.EngineOf(ctx, sid)
	return err == nil && has(d.Caps)
}

// engineOf is what engineHas asks of the runtimes.
type engineOf interface {
	EngineOf(ctx context.Context, sessionID string) (engine.Descriptor, error)
}

func ownCommands(c engine.Capabilities) bool { return c.Commands }
func ownModels(c engine.Capabilities) bool   { return c.Models }
func ownThinking(c engine.Capabilities) bool { return c.Thinking }

// piCommandsMsg is what loadCommands gives for a pi session.
func piCommandsMsg(ctx context.Context, rts commandRuntime, pi piCommands, sid string) commandsMsg {
	pcs, err := pi.Commands(ctx, sid)
	if err != nil {
		// pi-tui's own skills and templates stand in, as pi would find
		// them; the menu says why.
		msg := commandsMsg{sid: sid, piErr: "pi's commands could not be listed: " + err.Error()}
		if set, err := rts.Commands(ctx, sid); err == nil {
			msg.cmds, msg.warn = set.Commands(), set.Warnings
		}
		return msg
	}
	cmds, shadowed := piMenu(pcs)
	return commandsMsg{sid: sid, cmds: cmds, shadowed: shadowed}
}

// piMenu turns pi's commands into menu entries, each saying what it is
// and where it comes from; a name the chat's own commands take is left
// out and returned in shadowed (name → what pi has under it).
func piMenu(pcs []runtimes.PiCommand) (cmds []skills.Command, shadowed map[string]string) {
	for _, c := range pcs {
		what := piSource(c)
		if isBuiltin(c.Name) {
			if shadowed == nil {
				shadowed = map[string]string{}
			}
			shadowed[c.Name] = what
			continue
		}
		desc := what
		if d := strings.TrimSpace(c.Description); d != "" {
			desc = d + " · " + what
		}
		cmds = append(cmds, skills.Command{Name: c.Name, Description: desc, Skill: c.Source == "skill"})
	}
	return cmds, shadowed
}

// piSource names a pi command's kind, scope and file: "pi template
// (project, fix-tests.md)".
func piSource(c runtimes.PiCommand) string {
	kind := "pi " + c.Source
	switch c.Source {
	case "prompt":
		kind = "pi template"
	case "extension":
		kind = "pi extension"
	case "skill":
		kind = "pi skill"
	case "":
		kind = "pi"
	}
	var where []string
	if c.Scope != "" {
		where = append(where, c.Scope)
	}
	if c.Path != "" {
		where = append(where, filepath.Base(c.Path))
	}
	if len(where) > 0 {
		kind += " (" + strings.Join(where, ", ") + ")"
	}
	return kind
}

// menuCommands are the "/" menu's commands: the chat's own (saying which
// of pi's they hide), then the session's.
func (in *composer) menuCommands() []skills.Command {
	own := builtins()
	for i, b := range own {
		if what, ok := in.comp.shadowed[b.Name]; ok {
			own[i].Description = fmt.Sprintf("%s · pi-tui's; hides %s /%s", b.Description, what, b.Name)
		}
	}
	return append(own, in.cmds...)
}

// piCommand checks a typed /command against pi's commands: pi runs or
// expands a known one from the prompt text as typed.
func piCommand(ctx context.Context, pi piCommands, sid, typed string) expandedMsg {
	name, _, _ := strings.Cut(strings.TrimPrefix(typed, "/"), " ")
	name, _, _ = strings.Cut(name, "\n")
	pcs, err := pi.Commands(ctx, sid)
	if err != nil {
		return expandedMsg{sid: sid, typed: typed, err: err}
	}
	if !slices.ContainsFunc(pcs, func(c runtimes.PiCommand) bool { return c.Name == name }) {
		return expandedMsg{sid: sid, typed: typed, text: typed} // unknown: said as for the built-in engine
	}
	return expandedMsg{sid: sid, typed: typed, text: typed, verbatim: true}
}

// piModelPicker returns what lists pi's catalogue, off the UI goroutine:
// the menu to push, or the error to show.
func (t *tuner) piModelPicker() func(ctx context.Context) tea.Msg {
	pi, sid := t.pi, t.sid
	cur, _ := t.effective()
	current, _ := provider.SplitThinking(cur)
	return func(ctx context.Context) tea.Msg {
		if current == "" || strings.HasPrefix(current, "/") {
			// pi's own default: pi says which it is.
			if th, err := pi.Thinking(ctx, sid); err == nil {
				current = th.Model
			}
		}
		models, err := pi.Models(ctx, sid)
		if err == nil && len(models) == 0 {
			err = errors.New("pi lists no model: log in with pi (/login), set an API key, or add a provider to models.json")
		}
		if err != nil {
			return common.NoticeMsg{Text: err.Error(), Error: true}
		}
		rows := make([]modelRow, len(models))
		for i, p := range models {
			rows[i] = modelRow{spec: p.Spec(), label: piModelLabel(p)}
		}
		return common.PushMsg{Layer: t.modelMenu(rows, current)}
	}
}

// piModelLabel is a model's line: PROVIDER/ID, its name when it says
// more, its context window and whether it reasons.
func piModelLabel(p runtimes.PiModel) string {
	parts := []string{p.Spec()}
	if p.Name != "" && p.Name != p.ID {
		parts = append(parts, p.Name)
	}
	if p.ContextWindow > 0 {
		parts = append(parts, tokens(p.ContextWindow))
	}
	if p.Reasoning {
		parts = append(parts, "reasoning")
	}
	return strings.Join(parts, " · ")
}

// tokens writes a context window short: 200k, 1M.
func tokens(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// piDescribe is describe for a pi session: the levels pi offers for the
// model it runs, when that is the model chosen; a model chosen and not
// launched yet has pi's usual levels when pi's catalogue says it reasons
// (pi says its own once the next prompt launches it), else only off.
// running is the model the session's runtime runs ("" for none).
func piDescribe(ctx context.Context, pi Catalogue, running, sid, spec string) (provider.Description, error) {
	model, level := provider.SplitThinking(spec)
	if model == "" || model == running || strings.HasPrefix(model, "/") {
		th, err := pi.Thinking(ctx, sid)
		if err != nil {
			return provider.Description{}, err
		}
		in := th.Level
		if level != "" {
			in = provider.ClampThinking(th.Levels, level)
		}
		return provider.Description{Model: provider.Model{Thinking: in, Reasoning: len(th.Levels) > 1}, Levels: th.Levels, Usable: true}, nil
	}
	models, err := pi.Models(ctx, sid)
	if err != nil {
		return provider.Description{}, err
	}
	i := slices.IndexFunc(models, func(p runtimes.PiModel) bool { return p.Spec() == model })
	if i < 0 {
		return provider.Description{}, fmt.Errorf("pi does not list the model %s: choose one with /model", model)
	}
	levels := []string{provider.ThinkingOff}
	if models[i].Reasoning {
		levels = []string{provider.ThinkingOff, provider.ThinkingMinimal, provider.ThinkingLow, provider.ThinkingMedium, provider.ThinkingHigh}
	}
	if level == "" {
		level = provider.DefaultThinking
	}
	return provider.Description{Model: provider.Model{Thinking: provider.ClampThinking(levels, level), Reasoning: models[i].Reasoning}, Levels: levels, Usable: true}, nil
}
