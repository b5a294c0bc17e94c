package settings

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/services"
	"github.com/pi-tui/pi-tui/ui/common"
)

// The Engine rows: which engine runs the sessions (auto or one of the
// host's engines, core/engine), with the program each engine runs that
// was found (pi, with its version) or why none can be used, and how many
// pi processes may live at once. The engines and how to find their
// programs come from the host's registry; the rows never name one.

// EngineAuto is the Engine row's setting that leaves the choice to the
// runtimes, as the core names it.
const EngineAuto = services.EngineAuto

// piCapChoices are the caps the Live pi runtimes row cycles through.
var piCapChoices = []int{1, 2, 4, 8, 16}

// EngineSettings is what the Engine rows need of the core: the stored
// engine preference and cap, and their setters, which refuse a value
// they do not know with a one-line error.
type EngineSettings interface {
	EnginePreferences(ctx context.Context) (engine string, maxPiRuntimes int, err error)
	SetEngine(ctx context.Context, engine string) error
	SetMaxPiRuntimes(ctx context.Context, n int) error
}

// engineOf is the host's engine preferences, when its services keep
// them (nil otherwise: the rows then say the preference cannot be
// changed here).
func engineOf(h *host.Host) EngineSettings {
	if h == nil {
		return nil
	}
	if e, ok := any(h.Services).(EngineSettings); ok {
		return e
	}
	return nil
}

// enginesOf is the host's registry of engines (an empty one without a
// host).
func enginesOf(h *host.Host) *engine.Registry {
	if h == nil || h.Engines == nil {
		return engine.NewRegistry()
	}
	return h.Engines
}

// SetEngineSettings replaces where the Engine rows read and write the
// preference.
func (m *Model) SetEngineSettings(e EngineSettings) { m.engine = e }

// engineState is what the Engine rows show.
type engineState struct {
	have   bool // the core keeps the preference
	engine string
	maxPi  int
	err    string
}

// look is what looking for one engine's program found.
type look struct {
	d     engine.Descriptor
	found engine.Found
	err   error
}

// looks is what the last look for the engines' programs found, in the
// registry's order (the engines that have a program to find).
type looks struct {
	done bool
	list []look
}

// looksMsg is what look number n (Model.finds) found.
type looksMsg struct {
	n     int
	found looks
}

// findPrograms looks for the program of each engine that runs one (pi:
// PI_TUI_PI, else pi on PATH) and asks its version, off the update loop:
// the host's locator runs `pi --version` the first time a given
// executable is seen.
func (m *Model) findPrograms() tea.Cmd {
	m.finds++
	n, engines, ctx := m.finds, m.engines, m.st.Ctx
	return func() tea.Msg {
		out := looks{done: true}
		for _, d := range engines.All() {
			if d.Locate == nil {
				continue
			}
			f, err := d.Locate(ctx)
			out.list = append(out.list, look{d: d, found: f, err: err})
		}
		if ctx.Err() != nil {
			return nil
		}
		return looksMsg{n: n, found: out}
	}
}

// loadEngine reads the preference; it runs inside load's command.
func loadEngine(ctx context.Context, e EngineSettings) engineState {
	if e == nil {
		return engineState{}
	}
	s := engineState{have: true}
	var err error
	if s.engine, s.maxPi, err = e.EnginePreferences(ctx); err != nil {
		s.err = err.Error()
	}
	return s
}

// engineText is the Engine row's value: the engine chosen and what it
// means now, the program found or, whole where the width allows, why
// the engine cannot run.
func (m *Model) engineText() string {
	s := m.state.engine
	chosen := s.engine
	if !s.have {
		chosen = EngineAuto
	}
	if !m.found.done {
		var names []string
		for _, d := range m.engines.All() {
			if d.Locate != nil {
				names = append(names, d.Name)
			}
		}
		if len(names) > 0 {
			return chosen + " — looking for " + strings.Join(names, ", ") + "…"
		}
	}
	lookOf := func(d engine.Descriptor) (look, bool) {
		for _, l := range m.found.list {
			if l.d.Name == d.Name {
				return l, true
			}
		}
		return look{}, false
	}
	if chosen == EngineAuto {
		var passed []string
		for _, d := range m.engines.All() {
			l, ok := lookOf(d)
			switch {
			case d.Locate == nil && len(passed) > 0:
				return "auto — runs the " + d.Title + " engine: " + strings.Join(passed, "; ")
			case d.Locate == nil:
				return "auto — runs the " + d.Title + " engine"
			case ok && l.err == nil:
				return "auto — runs " + m.programText(l)
			case ok:
				passed = append(passed, m.programText(l))
			}
		}
		return chosen
	}
	d, ok := m.engines.Get(chosen)
	if !ok {
		return chosen
	}
	if l, ok := lookOf(d); ok {
		if l.err != nil {
			return chosen + " — sessions cannot start: " + m.programText(l)
		}
		return chosen + " — runs " + m.programText(l)
	}
	text := chosen + " — " + d.About
	for _, l := range m.found.list {
		if l.err == nil {
			text += "; " + m.programText(l) + " is not used"
		}
	}
	return text
}

// programText names the program a look found, "pi 1.6.0 (~/bin/pi)",
// or says why there is none.
func (m *Model) programText(l look) string {
	if l.err != nil {
		return common.VisibleLine(tildeText(l.err.Error(), m.host.Places.Home))
	}
	return l.d.Name + " " + common.VisibleLine(l.found.Version) + " (" + common.VisibleLine(paths.Tilde(l.found.Path, m.host.Places.Home)) + ")"
}

// piCapText is the Live pi runtimes row's value.
func (m *Model) piCapText() string {
	s := m.state.engine
	if !s.have {
		return "(this build cannot change it)"
	}
	return fmt.Sprintf("%d — pi processes alive at once (about 120 MB each); the idle ones are retired first", s.maxPi)
}

// after is the choice after cur, going round; the first when cur is
// none of them.
func after[T comparable](choices []T, cur T) T {
	for i, c := range choices {
		if c == cur {
			return choices[(i+1)%len(choices)]
		}
	}
	return choices[0]
}

// nextEngine saves the engine after the current one.
func (m *Model) nextEngine() tea.Cmd {
	if m.engine == nil {
		return common.Failure(fmt.Errorf("this build of pi-tui cannot change the engine"))
	}
	next, e, ctx := after(services.EngineChoices(m.engines.Names()), m.state.engine.engine), m.engine, m.st.Ctx
	return func() tea.Msg {
		return savedMsg{notice: "engine: " + next + " (sessions launched from now on)", err: e.SetEngine(ctx, next)}
	}
}

// nextPiCap saves the cap after the current one.
func (m *Model) nextPiCap() tea.Cmd {
	if m.engine == nil {
		return common.Failure(fmt.Errorf("this build of pi-tui cannot change the number of live pi runtimes"))
	}
	next, e, ctx := after(piCapChoices, m.state.engine.maxPi), m.engine, m.st.Ctx
	return func() tea.Msg {
		return savedMsg{notice: "live pi runtimes: at most " + strconv.Itoa(next), err: e.SetMaxPiRuntimes(ctx, next)}
	}
}
