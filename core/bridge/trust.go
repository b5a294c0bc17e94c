package bridge

import (
	"context"
	"slices"
)

// Project trust: pi 1.6 asks project_trust at its start whenever the
// project has resources of its own (ProjectResources); the host answers
// with pi-tui's trust and keeps what it answered, so the runtime can say
// which resources pi loaded and which it declined, and why.

// TrustReport is one project_trust answered: the decision and the
// resources it covered. Why says why they were declined ("" when
// trusted).
type TrustReport struct {
	Trusted   bool
	Resources []string
	Why       string
}

// Trust implements Host: the cwd pi names is ignored; the host's decision
// is about the root it bound. A decision that cannot be read is no.
func (d *Decisions) Trust(ctx context.Context, _ TrustRequest) (TrustResult, error) {
	rep := TrustReport{Why: "pi-tui gives this runtime no trust", Resources: ProjectResources(d.deps.Root, d.deps.Home)}
	var err error
	if d.deps.Trusted != nil {
		rep.Trusted, rep.Why, err = d.deps.Trusted(ctx)
		if err != nil {
			rep.Trusted, rep.Why = false, "pi-tui could not read the project's trust: "+err.Error()
		}
	}
	if rep.Trusted {
		rep.Why = ""
	}
	d.mu.Lock()
	d.trust = &rep
	d.mu.Unlock()
	if !rep.Trusted {
		return TrustResult{Trusted: "no"}, err
	}
	return TrustResult{Trusted: "yes"}, nil
}

// TrustAnswered returns pi's last project_trust as answered; ok is false
// when pi has not asked (its project has no resources of its own).
func (d *Decisions) TrustAnswered() (rep TrustReport, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.trust == nil {
		return TrustReport{}, false
	}
	rep = *d.trust
	rep.Resources = slices.Clone(rep.Resources)
	return rep, true
}
