package runtime

import (
	"context"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/instructions"
)

// proxy is the host side of the preflight: it resolves a target against
// the root bound at launch. The runtime sends only a target; it cannot
// choose the root.
type proxy struct {
	root    string
	trusted bool
	res     *instructions.Resolver
}

// Preflight resolves target's chain. Untrusted projects get the root
// chain: nested instructions need trust.
func (p *proxy) Preflight(ctx context.Context, target string) (agent.Claim, error) {
	if !p.trusted {
		c, err := p.res.ResolveRoot(ctx, p.root)
		if err != nil {
			return agent.Claim{}, err
		}
		return agent.Claim{Labels: labels(c), Reason: "untrusted project: nested instructions are not loaded until it is trusted"}, nil
	}
	c, err := p.res.ResolveTarget(ctx, p.root, target)
	if err != nil {
		return agent.Claim{}, err
	}
	claim := agent.Claim{Labels: labels(c), Fallback: c.Fallback}
	if c.Fallback && len(c.Warnings) > 0 {
		claim.Reason = c.Warnings[len(c.Warnings)-1]
	}
	return claim, nil
}

func labels(c *instructions.Chain) []string {
	out := make([]string, len(c.Sources))
	for i, s := range c.Sources {
		out[i] = s.Label
	}
	return out
}
