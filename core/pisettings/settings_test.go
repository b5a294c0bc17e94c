package pisettings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadDefaults(t *testing.T) {
	dir := t.TempDir()
	if d, err := ReadDefaults(dir); err != nil || d != (Defaults{}) {
		t.Fatalf("missing file = %+v, %v", d, err)
	}
	write := func(s string) { os.WriteFile(filepath.Join(dir, FileName), []byte(s), 0o644) }
	write(`{"defaultProvider":"anthropic","defaultModel":"claude-x","theme":"dark"}`)
	if d, err := ReadDefaults(dir); err != nil || d.Provider != "anthropic" || d.Model != "claude-x" {
		t.Errorf("defaults = %+v, %v", d, err)
	}
	write(`{"defaultProvider": 3}`)
	if _, err := ReadDefaults(dir); err == nil || !strings.Contains(err.Error(), "defaultProvider must be a string") {
		t.Errorf("wrong type: %v", err)
	}
	write(`{`)
	if _, err := ReadDefaults(dir); err == nil || !strings.Contains(err.Error(), FileName) {
		t.Errorf("bad JSON: %v", err)
	}
}

func TestParseModel(t *testing.T) {
	p, id, err := ParseModel("openrouter/anthropic/claude")
	if err != nil || p != "openrouter" || id != "anthropic/claude" {
		t.Errorf("= %q %q %v", p, id, err)
	}
	for _, bad := range []string{"", "claude", "/x", "x/"} {
		if _, _, err := ParseModel(bad); err == nil {
			t.Errorf("ParseModel(%q) accepted", bad)
		}
	}
}
