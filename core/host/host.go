// Package host is the embedded host core as the user interfaces see it: one
// store, the project registry, project memory, instruction resolution and
// pi-tui's own preferences. A terminal session, an SSH session and a script
// all talk to the same Host, so they see the same state and the same
// conflicts.
package host

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/projects"
	"github.com/pi-tui/pi-tui/core/settings"
	"github.com/pi-tui/pi-tui/store"
)

// Host holds the core services.
type Host struct {
	Places   paths.Places
	Store    *store.Store
	Projects *projects.Registry
	Memory   *memory.Service
	// Events is the broker every program subscribes to: the runtimes'
	// events and approvals, and "projects changed" after registry writes
	// and memory saves.
	Events *events.Broker
}

// Open opens the store in places.DataDir and builds the services.
func Open(ctx context.Context, places paths.Places) (*Host, error) {
	st, err := store.Open(ctx, places.Database(), store.Options{})
	if err != nil {
		return nil, err
	}
	return New(places, st), nil
}

// New builds the services over an open store (the caller keeps closing it).
func New(places paths.Places, st *store.Store) *Host {
	h := &Host{Places: places, Store: st, Projects: projects.NewRegistry(st, places.AgentDir), Memory: memory.NewService(st), Events: events.New()}
	h.Projects.OnChange(func(id string) { h.Events.Publish(events.ProjectsChanged{ProjectID: id}) })
	// The memory service knows the root, not the project: the runtimes
	// take the root, and any project's row may have changed.
	h.Memory.OnSave(func(root string) {
		h.Events.Publish(events.MemoryChanged{Root: root})
		h.Events.Publish(events.ProjectsChanged{})
	})
	return h
}

// Close releases the store.
func (h *Host) Close() error { return h.Store.Close() }

// DefaultModel reads the model defaults from A/settings.json. With none,
// the zero Model is returned and provider files are left out.
func (h *Host) DefaultModel() (instructions.Model, error) {
	d, err := settings.ReadDefaults(h.Places.AgentDir)
	if err != nil {
		return instructions.Model{}, err
	}
	return instructions.Model{Provider: d.Provider, ID: d.Model}, nil
}

// Resolver builds an instruction resolver for the model, reading
// agent-guidance.json afresh (it is small, and the user may just have
// changed it in Settings).
func (h *Host) Resolver(m instructions.Model) *instructions.Resolver {
	return instructions.New(instructions.Options{AgentDir: h.Places.AgentDir, Home: h.Places.Home, Model: m})
}

// Permission modes (DESIGN §7).
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
}

// DefaultPreferences are used for anything not stored.
func DefaultPreferences() Preferences {
	return Preferences{PermissionMode: PermissionAsk, IdleTTL: 15 * time.Minute}
}

const prefsNamespace = "piTui"

// Preferences reads the stored preferences over the defaults. A value that
// cannot be understood is ignored in favour of the default.
func (h *Host) Preferences(ctx context.Context) (Preferences, error) {
	p := DefaultPreferences()
	kv, err := h.Store.KVNamespace(ctx, prefsNamespace)
	if err != nil {
		return p, err
	}
	if v, ok := kv["permissionMode"]; ok && validMode(v) {
		p.PermissionMode = v
	}
	if n, err := strconv.Atoi(kv["idleTTLSeconds"]); err == nil && n > 0 {
		p.IdleTTL = time.Duration(n) * time.Second
	}
	return p, nil
}

func validMode(m string) bool {
	for _, x := range PermissionModes {
		if x == m {
			return true
		}
	}
	return false
}

// SetPermissionMode stores the permission mode.
func (h *Host) SetPermissionMode(ctx context.Context, mode string) error {
	if !validMode(mode) {
		return fmt.Errorf("unknown permission mode %q (ask, auto-edits, full-auto)", mode)
	}
	return h.setPref(ctx, "permissionMode", mode)
}

// SetIdleTTL stores the runtime idle TTL (at least a minute).
func (h *Host) SetIdleTTL(ctx context.Context, ttl time.Duration) error {
	if ttl < time.Minute {
		return fmt.Errorf("the idle TTL must be at least a minute, not %s", ttl)
	}
	return h.setPref(ctx, "idleTTLSeconds", strconv.Itoa(int(ttl/time.Second)))
}

// setPref writes a preference whatever it held (last writer wins: these
// are single values, not documents a user edits).
func (h *Host) setPref(ctx context.Context, key, value string) error {
	for range 5 {
		cur, ok, err := h.Store.GetKV(ctx, prefsNamespace, key)
		if err != nil {
			return err
		}
		var base *string
		if ok {
			base = &cur.Value
		}
		err = h.Store.CompareAndSwapKV(ctx, prefsNamespace, key, base, value)
		if err == nil || !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return fmt.Errorf("save preference %s: other writers kept changing it; try again", key)
}
