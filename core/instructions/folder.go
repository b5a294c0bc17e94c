package instructions

import "context"

// Folder is a folder of a multi-folder project other than its primary
// root (ADR 0085): where it is and the name that tells it apart.
type Folder struct {
	Root string
	Name string
}

// ResolveInFolder returns the chain of target inside folder f, the
// folder's own chain: the global sources, then every directory from
// f.Root down to the target's directory, each project source labelled
// "NAME:path" with the path relative to f.Root ("web:AGENTS.md",
// "web:packages/ui/AGENTS.md"), so the model and the user can tell it
// from the primary root's files of the same name. A relative target is
// relative to f.Root; a target leaving f is refused as ResolveTarget
// refuses one leaving the root. The primary root's own chain is not part
// of it (it is in the system prompt already), and, as for ResolveTarget,
// trust is the host's to apply.
func (r *Resolver) ResolveInFolder(ctx context.Context, f Folder, target string) (*Chain, error) {
	return r.resolve(ctx, f.Root, target, true, scope{folder: f.Name})
}

// ResolveGlobal returns the global sources alone, as a chain for target
// in folder f: what an agent gets for a folder whose own instruction
// files are not delivered (an untrusted one).
func (r *Resolver) ResolveGlobal(ctx context.Context, f Folder, target string) (*Chain, error) {
	return r.resolve(ctx, f.Root, target, true, scope{folder: f.Name, globalOnly: true})
}
