package registry

import (
	"context"
	"errors"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/store"
)

// The kv row that records that the store's trust flags were carried into
// trust.json (once per database).
const (
	migrationNamespace = "piTui"
	trustMigrationKey  = "trustMovedToTrustJSON"
)

// trustView is what decides trust at one moment: trust.json's decisions
// and the global defaultProjectTrust.
type trustView struct {
	d   Decisions
	def string
}

// trusted applies the nearest decision on root or a parent; without one,
// defaultProjectTrust "always" trusts, and "ask" (there is nobody to ask
// in a listing or a script) and "never" do not.
func (tv trustView) trusted(root string) bool {
	if t, _, ok := tv.d.Nearest(root); ok {
		return t
	}
	return tv.def == pisettings.TrustAlways
}

func (tv trustView) apply(p Project) Project {
	p.Trusted = tv.trusted(p.Root)
	return p
}

// view reads trust.json and the default now: pi may have changed either
// since the last look. A broken trust.json counts as no decisions (see
// TrustProblems for the sentence saying so).
func (r *Registry) view(ctx context.Context) trustView {
	r.migrate(ctx)
	d, _ := r.trust.Read(ctx)
	e := pisettings.Load(r.agentDir, "", false)
	return trustView{d: d, def: e.DefaultProjectTrust()}
}

func (r *Registry) withTrust(ctx context.Context, p Project) Project { return r.view(ctx).apply(p) }

// TrustProblems says why trust.json cannot be used, if it cannot (one
// sentence naming the file and the position), so the CLI and the status
// bar can show it.
func (r *Registry) TrustProblems(ctx context.Context) []error {
	if _, err := r.trust.Read(ctx); err != nil {
		return []error{err}
	}
	return nil
}

// migrate carries the trust flags of an older pi-tui's store into
// trust.json, once per database; a failure (a broken trust.json, say) is
// tried again by the next registry.
func (r *Registry) migrate(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.migrated {
		return
	}
	if err := r.migrateTrust(ctx); err == nil {
		r.migrated = true
	}
}

// migrateTrust writes, for each project without a decision of its own in
// trust.json, what keeps its trust as the store had it: true for a project
// the user trusted; false for an untrusted one only where a parent's
// decision or defaultProjectTrust would now trust it. An untrusted flag
// was pi-tui's default, not a decision, so elsewhere it stays unwritten
// and pi keeps asking. Keys the migration does not write are untouched.
func (r *Registry) migrateTrust(ctx context.Context) error {
	if _, found, err := r.st.GetKV(ctx, migrationNamespace, trustMigrationKey); err != nil || found {
		return err
	}
	rows, err := r.st.Projects(ctx, memory.Namespace)
	if err != nil {
		return err
	}
	e := pisettings.Load(r.agentDir, "", false)
	def := e.DefaultProjectTrust()
	plan := func(d Decisions) map[string]Decision {
		out := map[string]Decision{}
		for _, row := range rows {
			if d[jsString(row.Root)] != Undecided {
				continue // a decision for this very folder wins
			}
			switch eff := (trustView{d: d, def: def}).trusted(row.Root); {
			case row.Trusted:
				out[jsString(row.Root)] = Trusted
			case eff:
				out[jsString(row.Root)] = Untrusted
			}
		}
		return out
	}
	d, err := r.trust.Read(ctx)
	if err != nil {
		return err
	}
	if len(plan(d)) > 0 {
		err := r.trust.Update(ctx, func(d Decisions) error {
			for k, v := range plan(d) {
				d[k] = v
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	err = r.st.CompareAndSwapKV(ctx, migrationNamespace, trustMigrationKey, nil, "1")
	if errors.Is(err, store.ErrConflict) {
		return nil // another process finished it
	}
	return err
}
