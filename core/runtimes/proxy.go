package runtimes

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// deliveryBudget is the chain budget of the resolver that reads files for
// delivery: large enough that every file of a chain is read whole up to
// the 16 KiB delivery cap, still bounded.
const deliveryBudget = 256 * 1024

// proxy is the host side of the preflight: it resolves a target against
// the root bound at launch. The runtime sends only a target; it cannot
// choose the root.
type proxy struct {
	root    string
	trusted bool
	// folders are the session's folders, root first, and others the
	// project's folders after it, with their trust (ADR 0085): a target
	// in one of those gets that folder's own chain, when it is trusted.
	folders confine.Folders
	others  []registry.Folder
	res     *instructions.Resolver // the chain as budgeted for the prompt
	full    *instructions.Resolver // the same rules, for delivery content

	once       sync.Once
	base       []string        // root chain labels (the system prompt)
	basePaths  map[string]bool // canonical paths in the system prompt
	baseDigest map[string]bool // contents in the system prompt
	baseErr    error
}

func newProxy(root string, trusted bool, others []registry.Folder, folders confine.Folders, res *instructions.Resolver, home, agentDir string, model instructions.Model) *proxy {
	full := instructions.New(instructions.Options{AgentDir: agentDir, Home: home, Model: model, BudgetBytes: deliveryBudget,
		Guidance: res.Guidance()})
	if len(folders) == 0 {
		folders = confine.Single(root)
	}
	return &proxy{root: root, trusted: trusted, others: others, folders: folders, res: res, full: full}
}

// inFolder says which other folder of the project target lies in: its
// place, and the folder with its trust; ok is false for a target in the
// root or in none.
func (p *proxy) inFolder(target string) (confine.Place, registry.Folder, bool) {
	if len(p.folders) < 2 {
		return confine.Place{}, registry.Folder{}, false
	}
	pl, err := p.folders.Resolve(target)
	if err != nil || pl.Index == 0 || pl.Index > len(p.others) {
		return confine.Place{}, registry.Folder{}, false
	}
	return pl, p.others[pl.Index-1], true
}

// system loads, once, what the system prompt holds.
func (p *proxy) system(ctx context.Context) error {
	p.once.Do(func() {
		c, err := p.full.ResolveRoot(ctx, p.root)
		if err != nil {
			p.baseErr = err
			return
		}
		p.base = labels(c)
		p.basePaths, p.baseDigest = map[string]bool{}, map[string]bool{}
		for _, s := range c.Sources {
			p.basePaths[s.Canonical] = true
			p.baseDigest[instructions.Digest(s.Content)] = true
		}
	})
	return p.baseErr
}

// Preflight resolves target's chain and hands over the nested files with
// their content. Untrusted projects get the root chain and the names of
// what is withheld: nested instructions need trust. A target in another
// folder of the project gets that folder's own chain, from the folder
// down (labelled NAME:path), all of it nested context, under that
// folder's trust (ADR 0085).
func (p *proxy) Preflight(ctx context.Context, target string) (toolpolicy.Claim, error) {
	if err := p.system(ctx); err != nil {
		return toolpolicy.Claim{}, err
	}
	resolve := func(r *instructions.Resolver) (*instructions.Chain, error) {
		return r.ResolveTarget(ctx, p.root, target)
	}
	trusted, outside := p.trusted, "the target is outside the project"
	if pl, f, ok := p.inFolder(target); ok {
		in := instructions.Folder{Root: pl.Folder.Root, Name: pl.Folder.Name}
		resolve = func(r *instructions.Resolver) (*instructions.Chain, error) {
			return r.ResolveInFolder(ctx, in, pl.Canon)
		}
		trusted, outside = f.Trusted, "the target is outside its folder"
	}
	c, err := resolve(p.res)
	if err != nil {
		return toolpolicy.Claim{}, err
	}
	if c.Fallback {
		reason := outside
		if len(c.Warnings) > 0 {
			reason = c.Warnings[len(c.Warnings)-1]
		}
		return toolpolicy.Claim{Labels: p.base, Base: p.base, Fallback: true, Reason: reason}, nil
	}
	if !trusted {
		var withheld []string
		for _, s := range c.Sources {
			if !p.basePaths[s.Canonical] && s.Scope == instructions.ScopeProject {
				withheld = append(withheld, s.Label)
			}
		}
		return toolpolicy.Claim{Labels: p.base, Base: p.base, Untrusted: true, Withheld: withheld}, nil
	}
	claim := toolpolicy.Claim{Labels: labels(c), Base: p.base, Deliver: p.res.Guidance().SubdirectoryContext()}
	if !claim.Deliver {
		return claim, nil
	}
	fc, err := resolve(p.full)
	if err != nil {
		return toolpolicy.Claim{}, err
	}
	for _, s := range fc.Sources {
		if cf, ok := p.deliverable(s); ok {
			claim.Sources = append(claim.Sources, cf)
		}
	}
	return claim, nil
}

// deliverable turns a chain source into a file for delivery, unless the
// system prompt already holds it (by path or by content).
func (p *proxy) deliverable(s instructions.Source) (toolpolicy.ContextFile, bool) {
	digest := instructions.Digest(s.Content)
	if p.basePaths[s.Canonical] || p.baseDigest[digest] {
		return toolpolicy.ContextFile{}, false
	}
	cf := toolpolicy.ContextFile{Label: s.Label, Path: s.Canonical, Digest: digest, Content: s.Content, Shown: len(s.Content), Bytes: len(s.Content)}
	if s.Truncated {
		cf.Bytes = s.Bytes
	}
	if len(cf.Content) > instructions.DeliveryFileBytes || s.Truncated {
		cf.Content = instructions.Cut(cf.Content, instructions.DeliveryFileBytes)
		cf.Truncated = true
		cf.Shown = len(cf.Content)
		// The same note, word for word, as the system prompt's.
		cf.Content += "\n\n" + instructions.TruncationNote(instructions.Source{Label: s.Label, ShownBytes: cf.Shown, Bytes: cf.Bytes})
	}
	return cf, true
}

// ContextFile reports whether path is an instruction file of its own
// directory's chain (one that delivery would send), with its digest.
func (p *proxy) ContextFile(ctx context.Context, path string) (toolpolicy.ContextFile, bool, error) {
	pl, f, other := p.inFolder(path)
	if other && !f.Trusted || !other && !p.trusted {
		return toolpolicy.ContextFile{}, false, nil
	}
	if err := p.system(ctx); err != nil {
		return toolpolicy.ContextFile{}, false, err
	}
	dir := filepath.Dir(path) + string(filepath.Separator)
	var fc *instructions.Chain
	var err error
	if other {
		fc, err = p.full.ResolveInFolder(ctx, instructions.Folder{Root: pl.Folder.Root, Name: pl.Folder.Name}, dir)
	} else {
		fc, err = p.full.ResolveTarget(ctx, p.root, dir)
	}
	if err != nil {
		return toolpolicy.ContextFile{}, false, err
	}
	for _, s := range fc.Sources {
		if s.Canonical == path || s.Path == path {
			cf, ok := p.deliverable(s)
			return cf, ok, nil
		}
	}
	return toolpolicy.ContextFile{}, false, nil
}

func labels(c *instructions.Chain) []string {
	out := make([]string, len(c.Sources))
	for i, s := range c.Sources {
		out[i] = s.Label
	}
	return out
}
