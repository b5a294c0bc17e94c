package runtime

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pi-tui/pi-tui/core/instructions"
)

// The resolver cache: instruction resolvers per model and guidance file,
// so an unchanged prompt does not rebuild one.

// resolver returns a cached resolver for the model and the current
// agent-guidance.json (a changed file gives a new resolver).
func (m *Manager) resolver(model instructions.Model) *instructions.Resolver {
	agentDir := m.opts.Host.Places.AgentDir
	key := model.Provider + "/" + model.ID
	if fi, err := os.Stat(filepath.Join(agentDir, instructions.GuidanceFile)); err == nil {
		key += fmt.Sprintf("|%d|%d", fi.Size(), fi.ModTime().UnixNano())
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.resolvers[key]; ok {
		return r
	}
	if len(m.resolvers) > 16 {
		clear(m.resolvers)
	}
	r := instructions.New(instructions.Options{AgentDir: agentDir, Home: m.opts.Host.Places.Home, Model: model})
	m.resolvers[key] = r
	return r
}
