// Package services holds the host core's services over one store: the
// project registry and pi's trust, project memory, sessions, worktrees,
// approval rules, pi-tui's preferences and the event broker, each built
// once. It is the lower half of the composition root: core/host opens it
// and adds the runtimes, which use these services and so cannot be built
// in the package that the runtime package imports. The store stays
// inside: a user interface gets services, never the store
// (docs/adr/0041-composition-root.md).
package services

import (
	"context"
	"errors"
	"fmt"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/review"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
	"github.com/pi-tui/pi-tui/store"
)

// Options tune the services.
type Options struct {
	// Env is the environment git runs with for worktree sessions (its
	// PATH); nil means none is set.
	Env func(string) string
	// Engines names the engines the engine setting may choose besides
	// auto, in the order a picker shows them (the composition root's
	// registry, core/engine).
	Engines []string
}

// Services are the host core's services. Every program of a process (a
// terminal session, each SSH client, a script) uses the same ones, so
// they see the same state and meet the same conflicts.
type Services struct {
	// Places are the folders in use, the session folder included.
	Places paths.Places
	// Projects is the registry; Trust is pi's trust.json it reads.
	Projects *registry.Registry
	Trust    *registry.Trust
	Memory   *memory.Service
	// Sessions are pi's session files of the projects (in Places'
	// session folder, or pi's folder per project).
	Sessions *sessions.Manager
	// Worktrees verifies, makes, merges and discards worktree sessions,
	// and caches what git says of them.
	Worktrees *worktree.Service
	// Approvals are the projects' "always allow" rules.
	Approvals *approvals.Store
	// Checkpoints keep what each file-changing tool call did (the
	// runtimes record into it); Review is the programs' face of them:
	// changes, diffs, guarded undo.
	Checkpoints *checkpoints.Store
	Review      *review.Service
	// Events is the broker every program subscribes to: the runtimes'
	// events and approvals, and "projects changed" after registry writes
	// and memory saves.
	Events *events.Broker

	st      *store.Store
	engines []string // Options.Engines
}

// Open opens the store in places.DataDir and builds the services over
// it. Only the composition root (core/host) calls it, and tests of the
// packages below the root.
func Open(ctx context.Context, places paths.Places, opts Options) (*Services, error) {
	st, err := store.Open(ctx, places.Database(), store.Options{})
	if err != nil {
		return nil, err
	}
	if opts.Env == nil {
		opts.Env = func(string) string { return "" }
	}
	s := &Services{
		Places:    places,
		Projects:  registry.NewRegistry(st, places.AgentDir),
		Memory:    memory.NewService(st),
		Worktrees: worktree.NewService(st, places.DataDir, worktree.Options{Env: opts.Env}),
		Approvals: approvals.New(st),
		Events:    events.New(),
		st:        st,
		engines:   opts.Engines,
	}
	// Entries another writer appended, once read, are announced to every
	// program showing the session.
	arrived := func(id string, n int) { s.Events.Publish(events.SessionAppended{SessionID: id, Entries: n}) }
	s.Sessions = sessions.NewManager(st, sessions.Config{AgentDir: places.AgentDir, SessionDir: places.SessionDir, Arrived: arrived, Deleted: s.removeCheckpoints})
	s.Checkpoints = checkpoints.Open(places.Checkpoints(), checkpoints.Limits{})
	s.Review = review.New(s.Checkpoints, s.Sessions, s.Events)
	s.Review.UseFolders(s.projectFolderRoots)
	s.Trust = s.Projects.Trust()
	s.Projects.OnChange(func(id string) { s.Events.Publish(events.ProjectsChanged{ProjectID: id}) })
	// The memory service knows the root, not the project: the runtimes
	// take the root, and any project's row may have changed.
	s.Memory.OnSave(func(root string) {
		s.Events.Publish(events.MemoryChanged{Root: root})
		s.Events.Publish(events.ProjectsChanged{})
	})
	return s, nil
}

// removeCheckpoints removes a deleted session's checkpoints, as the
// session manager's Deleted hook. Left behind, they go at the next
// start's Clean (the session's file is gone).
func (s *Services) removeCheckpoints(sessionID string) error {
	if err := s.Checkpoints.Remove(sessionID); err != nil {
		return fmt.Errorf("its checkpoints were not removed (the next start removes them): %w", err)
	}
	return nil
}

// Close releases the store.
func (s *Services) Close() error {
	cerr := s.Checkpoints.Close()
	if err := s.st.Close(); err != nil {
		return err
	}
	return cerr
}

// Stamp identifies the state of the database files on disk: a different
// stamp means something wrote to them, another process included (the
// pi-tui CLI adding a project), which the broker never hears of.
type Stamp struct{ s store.Stamp }

// Stamp looks at the database files now (two stat calls).
func (s *Services) Stamp() Stamp { return Stamp{s.st.Stamp()} }

// projectFolderRoots are the canonical roots of a project's folders other
// than its primary root, as they are now: what undo checks a change made
// in another folder against (review.Service.UseFolders).
func (s *Services) projectFolderRoots(ctx context.Context, projectID string) ([]string, error) {
	folders, err := s.Projects.Folders(ctx, projectID)
	if nf := (*registry.NotFoundError)(nil); errors.As(err, &nf) {
		return []string{}, nil // the project is gone, and every folder of it with it
	}
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, f := range folders {
		if !f.Primary {
			out = append(out, f.Path)
		}
	}
	return out, nil
}
