package runtimes

import (
	"context"
	"slices"
	"strings"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// Checkpoints: each runtime records its session's file-changing tool
// calls into the host's checkpoint store (core/checkpoints), in the root
// it is bound to (a worktree session's worktree), whichever engine runs
// it: the built-in engine brackets its calls itself, the pi engine's are
// bracketed by the bridge's host (core/bridge).

// checkpointer returns the recorder of a runtime about to launch for
// sess, and the Checkpointer its engine is given (nil, nil when the host
// keeps no checkpoints).
func (m *Manager) checkpointer(b built, sess *sessions.Session) (*checkpoints.Recorder, toolpolicy.Checkpointer) {
	store := m.opts.Host.Checkpoints
	if store == nil {
		return nil, nil
	}
	rec := store.Recorder(sess.ID(), sess.File(), b.spec.Root)
	cp := toolpolicy.Checkpoints(rec)
	if len(b.spec.Folders) > 0 {
		// A project of several folders: each folder's changes are
		// recorded in that folder (folders.go).
		fc := folderCheckpoints{folders: b.spec.confined(), each: []toolpolicy.Checkpointer{cp},
			changed: toolpolicy.NewReach(m.noteFolderUse(sess.ProjectID(), sess.ID()))}
		for _, f := range b.spec.Folders {
			var c toolpolicy.Checkpointer
			if !f.Missing {
				c = toolpolicy.Checkpoints(store.FolderRecorder(sess.ID(), sess.File(), f.Path, f.Name))
			}
			fc.each = append(fc.each, c)
		}
		cp = fc
	}
	if m.opts.WrapCheckpoints != nil {
		cp = m.opts.WrapCheckpoints(b.spec.Root, cp)
	}
	return rec, cp
}

// prewarmLocked walks the root of a runtime launched ahead of its first
// prompt (a session view opening) once in the background, so its first
// call that walks the project (bash) reads only what changed; the walk
// ends when the runtime is retired (retireLocked) and Close waits for
// it. A runtime a prompt launched has no such time to spend: its first
// walking call walks (ADR 0087).
func (m *Manager) prewarmLocked(rt *Runtime) {
	if rt.recorder == nil || rt.stopPrewarm != nil {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	rt.stopPrewarm = stop
	rec := rt.recorder
	m.prewarms.Add(1)
	go func() {
		defer m.prewarms.Done()
		// A walk that fails costs nothing but time: the first call that
		// walks the project walks it again and says what it missed.
		_ = rec.Prewarm(ctx)
	}()
}

// stopPrewarmLocked ends a retired runtime's walk.
func (rt *Runtime) stopPrewarmLocked() {
	if rt.stopPrewarm != nil {
		rt.stopPrewarm()
	}
}

// folderCheckpoints brackets a call in every folder it can change: write
// and edit in the folder of their file, any other call (bash) in each
// folder present, each folder's changes recorded with its own recorder.
type folderCheckpoints struct {
	folders confine.Folders
	each    []toolpolicy.Checkpointer // by folder; nil for a missing one
	// changed is told of a folder other than the primary root the first
	// time a call changed a file there: a bash call names no path, so the
	// tools' own note (Config.Reached) never sees it reach another folder,
	// and removing that folder must still name the session.
	changed *toolpolicy.Reach
}

func (fc folderCheckpoints) Before(ctx context.Context, c checkpoints.Call) toolpolicy.Checkpoint {
	marks := multiMark{folders: fc.folders, changed: fc.changed}
	if c.Paths == nil {
		for i, cp := range fc.each {
			if cp != nil {
				marks.each = append(marks.each, folderMark{i, cp.Before(ctx, c)})
			}
		}
		return marks
	}
	by := map[int][]string{}
	var order []int
	for _, p := range c.Paths {
		i, ok := fc.folders.Holding(p)
		if !ok || i >= len(fc.each) || fc.each[i] == nil {
			continue
		}
		if by[i] == nil {
			order = append(order, i)
		}
		by[i] = append(by[i], p)
	}
	for _, i := range order {
		one := c
		one.Paths = by[i]
		marks.each = append(marks.each, folderMark{i, fc.each[i].Before(ctx, one)})
	}
	return marks
}

// multiMark is a call's checkpoints in several folders: what each
// recorded, together.
type multiMark struct {
	folders confine.Folders
	changed *toolpolicy.Reach
	each    []folderMark
}

// folderMark is a call's checkpoint in the folder at index i.
type folderMark struct {
	i  int
	cp toolpolicy.Checkpoint
}

func (mm multiMark) After(ctx context.Context) checkpoints.Result {
	var out checkpoints.Result
	var notes []string
	for _, m := range mm.each {
		r := m.cp.After(ctx)
		if len(r.Changes) > 0 && m.i > 0 && m.i < len(mm.folders) {
			mm.changed.Note(confine.Place{Index: m.i, Folder: mm.folders[m.i]})
		}
		out.Changes = append(out.Changes, r.Changes...)
		if r.Note != "" && !slices.Contains(notes, r.Note) {
			notes = append(notes, r.Note)
		}
	}
	out.Note = strings.Join(notes, "; ")
	return out
}
