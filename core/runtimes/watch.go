package runtimes

import (
	"context"
	"path/filepath"

	"github.com/fsnotify/fsnotify"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/registry"
)

// The watchers: an instruction candidate, guidance, settings, models,
// keys or trust changing in a bound root or the agent dir (fsnotify), or a
// project's memory saved in this process (the broker's Memory topic),
// retires the idle runtimes it concerns.

// watchLocked counts users of a directory watch.
func (m *Manager) watchLocked(dir string, delta int) {
	if m.watcher == nil || dir == "" {
		return
	}
	n := m.watched[dir] + delta
	switch {
	case n <= 0:
		delete(m.watched, dir)
		m.watcher.Remove(dir)
	case n == delta: // first user
		m.watched[dir] = n
		m.watcher.Add(dir)
	default:
		m.watched[dir] = n
	}
}

// watch retires idle runtimes when an instruction candidate in a root or
// in the agent dir changes.
func (m *Manager) watch(w *fsnotify.Watcher) {
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if !relevant(filepath.Base(ev.Name)) {
				continue
			}
			dir := filepath.Dir(ev.Name)
			agentDir := m.opts.Host.Places.AgentDir
			m.refreshWhere(func(rt *Runtime) bool { return dir == agentDir || rt.Spec.Root == dir }, ReasonInstructionsChanged)
		case _, ok := <-w.Errors:
			if !ok {
				return
			}
		}
	}
}

// relevant names the files whose change can change a root chain.
func relevant(name string) bool {
	switch name {
	case "AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD", ".claude", "CODEX.md", "GEMINI.md",
		instructions.GuidanceFile, "settings.json", "models.json", "auth.json", registry.TrustFile:
		return true
	}
	return filepath.Ext(name) == ".md"
}

// watchMemory retires the idle runtimes of a project whose memory was
// saved through this process (events.MemoryChanged), until Close.
func (m *Manager) watchMemory() {
	ctx, stop := context.WithCancel(context.Background())
	m.stopMemory, m.memoryDone = stop, make(chan struct{})
	sub := m.opts.Host.Events.Subscribe(ctx, events.Memory)
	go func() {
		defer close(m.memoryDone)
		for {
			batch, ok := sub.Next()
			if !ok {
				return
			}
			for _, e := range batch {
				if c, ok := e.(events.MemoryChanged); ok {
					m.refreshWhere(func(rt *Runtime) bool { return rt.Spec.ProjectRoot == c.Root }, ReasonMemoryChanged)
				}
			}
		}
	}()
}
