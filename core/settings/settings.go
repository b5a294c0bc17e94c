// Package settings reads pi's A/settings.json, which pi-tui shares with
// pi. Only the keys pi-tui uses are read here; writers elsewhere must keep
// every other key as it was.
package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// FileName is the settings file inside the agent dir.
const FileName = "settings.json"

// maxSize bounds how much of settings.json is read.
const maxSize = 1 << 20

// Defaults are the model defaults pi keeps in settings.json.
type Defaults struct {
	Provider string `json:"defaultProvider"`
	Model    string `json:"defaultModel"`
}

// ReadDefaults returns the default provider and model. A missing file is
// no defaults and no error; an unreadable or invalid one is an error that
// names the file.
func ReadDefaults(agentDir string) (Defaults, error) {
	path := filepath.Join(agentDir, FileName)
	data, _, err := fsutil.ReadRegular(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return Defaults{}, nil
	}
	if err != nil {
		return Defaults{}, fmt.Errorf("read %s: %w", path, fsutil.PlainError(err))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Defaults{}, fmt.Errorf("%s is not valid JSON: %v", path, err)
	}
	var d Defaults
	for key, dst := range map[string]*string{"defaultProvider": &d.Provider, "defaultModel": &d.Model} {
		if v, ok := raw[key]; ok {
			if err := json.Unmarshal(v, dst); err != nil {
				return Defaults{}, fmt.Errorf("%s: %s must be a string", path, key)
			}
		}
	}
	d.Provider, d.Model = strings.TrimSpace(d.Provider), strings.TrimSpace(d.Model)
	return d, nil
}

// ParseModel splits "PROVIDER/ID" (the id may itself contain slashes, as
// in openrouter/anthropic/claude-sonnet-4).
func ParseModel(s string) (provider, id string, err error) {
	provider, id, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || provider == "" || id == "" {
		return "", "", fmt.Errorf("model %q must be written PROVIDER/ID, for example anthropic/claude-sonnet-4-5", s)
	}
	return provider, id, nil
}
