package registry

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// BroadRootError says a folder is too broad to become a project without
// a second confirmation: the agent's file tools are confined to a
// project's root, so a root that holds the home folder or pi's own files
// confines nothing that matters.
type BroadRootError struct {
	Root string // canonical
	What string // what the folder is, e.g. "your home folder"
}

func (e *BroadRootError) Error() string {
	return fmt.Sprintf("%s is %s: the agent's file tools will reach everything below it", e.Root, e.What)
}

// CheckBroad returns a *BroadRootError when registering path as a new
// project would let an agent's file tools reach far more than a project:
// the root of the file system; the home folder or a folder above it; a
// folder holding pi's agent dir (API keys in auth.json, sessions) or
// pi-tui's data dir (the database, the SSH host key). It returns nil for
// any other folder, for a folder that is already registered (adding it
// again reaches nothing new), and for a path that is not a folder at all,
// which Add then reports.
func (r *Registry) CheckBroad(ctx context.Context, path string, pl paths.Places) error {
	root, err := Canonical(path)
	if err != nil {
		return nil
	}
	what := broad(root, pl)
	if what == "" {
		return nil
	}
	if _, known, err := r.findPath(ctx, root); err != nil {
		return err
	} else if known {
		return nil
	}
	return &BroadRootError{Root: root, What: what}
}

// broad says what root (canonical) is when it is too broad, else "".
func broad(root string, pl paths.Places) string {
	canon := func(p string) string {
		if p == "" {
			return ""
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return ""
		}
		return abs
	}
	home, agent, data := canon(pl.Home), canon(pl.AgentDir), canon(pl.DataDir)
	switch {
	case filepath.Dir(root) == root:
		return "the root of the file system"
	case home != "" && root == home:
		return "your home folder"
	case home != "" && fsutil.Within(root, home):
		return "a folder above your home folder"
	case agent != "" && fsutil.Within(root, agent):
		return fmt.Sprintf("a folder holding pi's agent dir %s (API keys, sessions)", agent)
	case data != "" && fsutil.Within(root, data):
		return fmt.Sprintf("a folder holding pi-tui's data dir %s (its database, the SSH host key)", data)
	}
	return ""
}
