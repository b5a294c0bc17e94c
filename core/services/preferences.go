package services

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/store"
)

// DefaultModel reads the model defaults from A/settings.json. With none,
// the zero Model is returned and provider files are left out.
func (s *Services) DefaultModel() (instructions.Model, error) {
	d, err := pisettings.ReadDefaults(s.Places.AgentDir)
	if err != nil {
		return instructions.Model{}, err
	}
	return instructions.Model{Provider: d.Provider, ID: d.Model}, nil
}

// Resolver builds an instruction resolver for the model, reading
// agent-guidance.json afresh (it is small, and the user may just have
// changed it in Settings).
func (s *Services) Resolver(m instructions.Model) *instructions.Resolver {
	return instructions.New(instructions.Options{AgentDir: s.Places.AgentDir, Home: s.Places.Home, Model: m})
}

// Permission modes: ask asks before any call that edits files or runs a
// command; auto-edits asks only before one that runs a command (or edits a
// file git would run); full-auto asks before none.
const (
	PermissionAsk       = "ask"
	PermissionAutoEdits = "auto-edits"
	PermissionFullAuto  = "full-auto"
)

// PermissionModes lists the modes in the order a picker shows them.
var PermissionModes = []string{PermissionAsk, PermissionAutoEdits, PermissionFullAuto}

// Preferences are pi-tui's own settings, kept in the store (namespace
// "piTui") rather than in pi's settings.json, which pi owns.
type Preferences struct {
	PermissionMode string
	IdleTTL        time.Duration
	// Engine is the runtime engine new runtimes use: EngineAuto (the
	// first registered engine that can run: the user's pi when a
	// supported one is found, else the built-in one) or a registered
	// engine's name (Options.Engines). PI_TUI_ENGINE and --engine override
	// it.
	Engine string
	// MaxPiRuntimes bounds the pi processes alive at once (each costs
	// about 120 MB); idle ones are retired first to make room.
	MaxPiRuntimes int
}

// EngineAuto is the engine setting that leaves the choice to the runtime
// manager (docs/adr/0047-engines-in-the-runtime-manager.md); the other
// settings are the registered engines' names (docs/adr/0083).
const EngineAuto = "auto"

// EngineChoices lists the engine settings in the order a picker shows
// them: auto, then the engines (a registry's names, in its order).
func EngineChoices(engines []string) []string {
	return append([]string{EngineAuto}, engines...)
}

// EngineChoices lists the engine settings these services take.
func (s *Services) EngineChoices() []string { return EngineChoices(s.engines) }

// DefaultMaxPiRuntimes is MaxPiRuntimes when none is stored; MaxPiRuntimesLimit
// is the most SetMaxPiRuntimes takes.
const (
	DefaultMaxPiRuntimes = 4
	MaxPiRuntimesLimit   = 64
)

// DefaultPreferences are used for anything not stored.
func DefaultPreferences() Preferences {
	return Preferences{PermissionMode: PermissionAsk, IdleTTL: 15 * time.Minute, Engine: EngineAuto, MaxPiRuntimes: DefaultMaxPiRuntimes}
}

const prefsNamespace = "piTui"

// Preferences reads the stored preferences over the defaults. A value that
// cannot be understood is ignored in favour of the default.
func (s *Services) Preferences(ctx context.Context) (Preferences, error) {
	p := DefaultPreferences()
	kv, err := s.st.KVNamespace(ctx, prefsNamespace)
	if err != nil {
		return p, err
	}
	if v, ok := kv["permissionMode"]; ok && slices.Contains(PermissionModes, v) {
		p.PermissionMode = v
	}
	if n, err := strconv.Atoi(kv["idleTTLSeconds"]); err == nil && n > 0 {
		p.IdleTTL = time.Duration(n) * time.Second
	}
	if v, ok := kv["engine"]; ok && slices.Contains(s.EngineChoices(), v) {
		p.Engine = v
	}
	if n, err := strconv.Atoi(kv["maxPiRuntimes"]); err == nil && n >= 1 && n <= MaxPiRuntimesLimit {
		p.MaxPiRuntimes = n
	}
	return p, nil
}

// SetPermissionMode stores the permission mode.
func (s *Services) SetPermissionMode(ctx context.Context, mode string) error {
	if !slices.Contains(PermissionModes, mode) {
		return fmt.Errorf("unknown permission mode %q (ask, auto-edits, full-auto)", mode)
	}
	return s.setPref(ctx, "permissionMode", mode)
}

// SetIdleTTL stores the runtime idle TTL (at least a minute).
func (s *Services) SetIdleTTL(ctx context.Context, ttl time.Duration) error {
	if ttl < time.Minute {
		return fmt.Errorf("the idle TTL must be at least a minute, not %s", ttl)
	}
	return s.setPref(ctx, "idleTTLSeconds", strconv.Itoa(int(ttl/time.Second)))
}

// SetEngine stores the engine setting (auto or an engine's name).
func (s *Services) SetEngine(ctx context.Context, engine string) error {
	if choices := s.EngineChoices(); !slices.Contains(choices, engine) {
		return fmt.Errorf("unknown engine %q (%s)", engine, strings.Join(choices, ", "))
	}
	return s.setPref(ctx, "engine", engine)
}

// EnginePreferences returns the engine setting and the cap on live pi
// processes, as Settings shows them.
func (s *Services) EnginePreferences(ctx context.Context) (engine string, maxPiRuntimes int, err error) {
	p, err := s.Preferences(ctx)
	return p.Engine, p.MaxPiRuntimes, err
}

// SetMaxPiRuntimes stores how many pi processes may be alive at once.
func (s *Services) SetMaxPiRuntimes(ctx context.Context, n int) error {
	if n < 1 || n > MaxPiRuntimesLimit {
		return fmt.Errorf("the most pi runtimes must be between 1 and %d, not %d", MaxPiRuntimesLimit, n)
	}
	return s.setPref(ctx, "maxPiRuntimes", strconv.Itoa(n))
}

// setPref writes a preference whatever it held (last writer wins: these
// are single values, not documents a user edits).
func (s *Services) setPref(ctx context.Context, key, value string) error {
	for range 5 {
		cur, ok, err := s.st.GetKV(ctx, prefsNamespace, key)
		if err != nil {
			return err
		}
		var base *string
		if ok {
			base = &cur.Value
		}
		err = s.st.CompareAndSwapKV(ctx, prefsNamespace, key, base, value)
		if err == nil || !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return fmt.Errorf("save preference %s: other writers kept changing it; try again", key)
}
