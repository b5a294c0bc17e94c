package runtimes

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/memory"
)

// The one road for "the context changed" (ADR 0084). An idle runtime is
// retired as soon as what its system prompt holds changes: its root chain
// (a file the chain is read from, in its root or the agent dir) or its
// project's memory (the database it lives in). Every change is a file
// event, whoever made it: the AGENTS.md and memory editors of this
// program, the agent of another session, the user's editor, another
// pi-tui. A memory save of this process is announced on the broker too,
// the moment it is committed, and joins the same check (contextChanged).
// Other files (a README.md) are ignored, and the check builds no spec: it
// resolves the chain or loads the memory and compares it with what the
// runtime has, so one edit costs one build, the next prompt's. What else a
// spec holds (model, keys, settings, trust) is compared by that build.

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

// watchDirsLocked adds (delta 1) or drops (-1) the watches a runtime
// needs: its root, the agent dir and the database's folder.
func (m *Manager) watchDirsLocked(rt *Runtime, delta int) {
	m.watchLocked(rt.Spec.Root, delta)
	m.watchLocked(m.opts.Host.Places.AgentDir, delta)
	m.watchLocked(filepath.Dir(m.opts.Host.Places.Database()), delta)
}

// changes are the file events of one burst (a save is several: a
// create, writes, a rename), so a burst is one check per runtime.
type changes struct {
	files  map[string]bool // dir + separator + name of each entry changed
	memory bool            // the database was written
}

func (c *changes) add(m *Manager, path string) {
	db := m.opts.Host.Places.Database()
	if path == db || path == db+"-wal" {
		c.memory = true
		return
	}
	if c.files == nil {
		c.files = map[string]bool{}
	}
	c.files[path] = true
}

// touches reports whether the burst changed a file the root chain of
// root is read from: in root, a name res reads there; in the agent dir,
// one it reads there.
func (c *changes) touches(root, agentDir string, res *instructions.Resolver) bool {
	for path := range c.files {
		dir, name := filepath.Dir(path), filepath.Base(path)
		if (dir == root && res.ReadsInRoot(name)) || (dir == agentDir && res.ReadsInAgentDir(name)) {
			return true
		}
	}
	return false
}

// recheckAfter is how long after a write to the database whose check found
// nothing the memory is checked once more. A commit's last write to the
// WAL comes a moment before readers can see it (the WAL index is updated
// after, in shared memory, which raises no file event), so the check a
// write raises may come too early; the one after recheckAfter does not.
const recheckAfter = 250 * time.Millisecond

// watch takes the watcher's events until it is closed, a burst at a time
// (what has arrived when one is taken), and retires the idle runtimes
// they concern.
func (m *Manager) watch(w *fsnotify.Watcher) {
	defer m.watching.Done()
	again := time.NewTimer(recheckAfter)
	again.Stop()
	defer again.Stop()
	for {
		var c changes
		settled := false
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			c.add(m, ev.Name)
		case _, ok := <-w.Errors:
			if !ok {
				return
			}
			continue
		case <-again.C:
			c.memory, settled = true, true
		}
	burst:
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					break burst
				}
				c.add(m, ev.Name)
			default:
				break burst
			}
		}
		if m.contextChanged(c) == 0 && c.memory && !settled {
			again.Reset(recheckAfter)
		}
	}
}

// watchMemory takes the memory saves of this process from the broker
// (events.MemoryChanged, published once the save is committed) into the
// same check as the file events, until Close: a save seen here needs no
// settling.
func (m *Manager) watchMemory(ctx context.Context) {
	m.onTopic(ctx, events.Memory, func(batch []events.Event) {
		if slices.ContainsFunc(batch, func(e events.Event) bool { _, ok := e.(events.MemoryChanged); return ok }) {
			m.contextChanged(changes{memory: true})
		}
	})
}

// onTopic hands each batch of the broker's topic to fn, on a goroutine of
// its own, until ctx ends (Close); m.watching counts it, added by the
// caller.
func (m *Manager) onTopic(ctx context.Context, topic events.Topic, fn func([]events.Event)) {
	sub := m.opts.Host.Events.Subscribe(ctx, topic)
	go func() {
		defer m.watching.Done()
		for {
			batch, ok := sub.Next()
			if !ok {
				return
			}
			fn(batch)
		}
	}()
}

// contextChanged retires each idle runtime whose root chain or memory is
// no longer what it was launched with, and says how many it retired.
func (m *Manager) contextChanged(c changes) (retired int) {
	type idle struct {
		rt   *Runtime
		spec Spec // as it was under the lock (adopt and retune move it)
	}
	m.mu.Lock()
	var list []idle
	for _, rt := range m.runtimes {
		if !rt.busy() && !rt.reserved {
			list = append(list, idle{rt, rt.Spec})
		}
	}
	m.mu.Unlock()
	for _, x := range list {
		reason := m.stale(context.Background(), x.spec, c)
		if reason == "" {
			continue
		}
		rt := x.rt
		m.mu.Lock()
		if m.runtimes[rt.Session.ID()] == rt && !rt.busy() && !rt.reserved && rt.Spec.Sections == x.spec.Sections {
			m.retireLocked(rt, reason)
			retired++
		}
		m.mu.Unlock()
	}
	return retired
}

// stale says why a runtime launched with spec no longer has its context:
// its root chain (ReasonInstructionsChanged) or its memory
// (ReasonMemoryChanged) now reads otherwise; "" when what the burst
// changed leaves both as they were.
func (m *Manager) stale(ctx context.Context, spec Spec, c changes) string {
	provider, id, _ := strings.Cut(spec.Model, "/")
	// The resolver for the agent-guidance.json there is now.
	res := m.resolver(instructions.Model{Provider: provider, ID: id})
	if c.touches(spec.Root, m.opts.Host.Places.AgentDir, res) {
		chain, err := res.ResolveRoot(ctx, spec.Root)
		if err != nil || chain.Text != spec.Sections.Instructions {
			return ReasonInstructionsChanged
		}
	}
	if c.memory {
		mem, err := m.opts.Host.Memory.Load(ctx, spec.ProjectRoot)
		if unreadable := (*memory.UnreadableError)(nil); err != nil && !errors.As(err, &unreadable) {
			return "" // the store cannot say now; the next prompt's build asks again
		}
		if m.memorySection(spec.ProjectRoot, mem.Content) != spec.Sections.Memory {
			return ReasonMemoryChanged
		}
	}
	return ""
}
