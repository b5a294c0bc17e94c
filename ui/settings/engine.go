package settings

import (
	"context"
	"fmt"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/piengine"
	"github.com/pi-tui/pi-tui/core/services"
	"github.com/pi-tui/pi-tui/ui/common"
)

// The Engine rows: which engine runs the sessions (auto, pi, builtin),
// with the pi that was found or why none can be used, and how many pi
// processes may live at once.

// The engines the Engine row cycles through, as the core names them.
const (
	EngineAuto    = services.EngineAuto
	EnginePi      = services.EnginePi
	EngineBuiltin = services.EngineBuiltin
)

var engineChoices = services.EngineChoices

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

// piFound is what looking for pi found.
type piFound struct {
	done bool
	pi   piengine.Pi
	err  error
}

// piFoundMsg is what look number n (Model.finds) found.
type piFoundMsg struct {
	n     int
	found piFound
}

// findPi looks for pi (PI_TUI_PI, else pi on PATH) and asks its version,
// off the update loop: it runs `pi --version` the first time a given
// executable is seen.
func (m *Model) findPi() tea.Cmd {
	m.finds++
	n, loc, ctx := m.finds, m.locator, m.st.Ctx
	return func() tea.Msg {
		p, err := loc.Find(ctx)
		if ctx.Err() != nil {
			return nil
		}
		return piFoundMsg{n: n, found: piFound{done: true, pi: p, err: err}}
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
// means now, the pi found or, whole where the width allows, why pi cannot
// be used.
func (m *Model) engineText() string {
	s, found := m.state.engine, m.pi
	usable := found.done && found.err == nil
	var pi string
	switch {
	case usable:
		pi = "pi " + common.VisibleLine(found.pi.Version) + " (" + common.VisibleLine(paths.Tilde(found.pi.Path, m.host.Places.Home)) + ")"
	case found.done:
		pi = common.VisibleLine(tildeText(found.err.Error(), m.host.Places.Home))
	}
	engine := s.engine
	if !s.have {
		engine = EngineAuto
	}
	switch {
	case !found.done:
		return engine + " — looking for pi…"
	case engine == EnginePi && !usable:
		return "pi — sessions cannot start: " + pi
	case engine == EnginePi:
		return "pi — runs " + pi
	case engine == EngineBuiltin && usable:
		return "builtin — pi-tui's own engine; " + pi + " is not used"
	case engine == EngineBuiltin:
		return "builtin — pi-tui's own engine"
	case usable:
		return "auto — runs " + pi
	}
	return "auto — runs the built-in engine: " + pi
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
	next, e, ctx := after(engineChoices, m.state.engine.engine), m.engine, m.st.Ctx
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
