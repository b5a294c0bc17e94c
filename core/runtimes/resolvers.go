package runtimes

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
)

// The resolver caches: instruction resolvers per model and guidance file,
// and resolved models per spec and pi's model, key and settings files, so
// an unchanged prompt rebuilds neither (decoding the model catalogue alone
// cost more than the rest of the host's work before a prompt).

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

// modelPick is a model spec resolved: the client and what it runs.
type modelPick struct {
	client provider.Client
	model  provider.Model
}

// pickModel resolves a model spec as provider.Resolve does (or as
// Options.Resolve says), remembering the answer while models.json,
// auth.json and settings.json stay as they were (size and modification
// time) and the client options are the same. A remembered client is
// handed to the next launch too: it finds its key on its first call, as a
// new one would, and the files it came from have not changed. The
// environment is the process's own and is read once per answer; failures
// are not remembered.
func (m *Manager) pickModel(spec string, popts provider.Options) (provider.Client, provider.Model, error) {
	if m.opts.Resolve != nil {
		return m.opts.Resolve(spec)
	}
	agentDir := m.opts.Host.Places.AgentDir
	key := fmt.Sprintf("%s|%d|%d|%d|%d|%p", spec, popts.MaxRetries, popts.Backoff, popts.FirstByteTimeout, popts.IdleTimeout, popts.HTTPClient)
	for _, name := range []string{pisettings.ModelsFile, pisettings.AuthFile, pisettings.FileName} {
		key += "|" + fileStamp(filepath.Join(agentDir, name))
	}
	m.mu.Lock()
	p, ok := m.models[key]
	m.mu.Unlock()
	if ok {
		return p.client, p.model, nil
	}
	client, model, err := provider.Resolve(agentDir, m.opts.Env, spec, popts)
	if err != nil {
		return nil, provider.Model{}, err
	}
	m.mu.Lock()
	if len(m.models) > 16 {
		clear(m.models)
	}
	m.models[key] = modelPick{client: client, model: model}
	m.mu.Unlock()
	return client, model, nil
}

// fileStamp says how a file is now: its size and modification time, or
// that it is absent.
func fileStamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "-"
	}
	return fmt.Sprintf("%d.%d", fi.Size(), fi.ModTime().UnixNano())
}
