package pisettings

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// returns runs f and waits for it; a call that blocks fails the test
// shortly before the test binary's own deadline instead of hanging it.
func returns(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	var limit <-chan time.Time
	if d, ok := t.Deadline(); ok {
		limit = time.After(time.Until(d) * 9 / 10)
	}
	select {
	case err := <-done:
		return err
	case <-limit:
		t.Fatalf("%s blocked", what)
	}
	return nil
}

// TestSettingsFilesThatAreFIFOs: a FIFO where models.json, settings.json
// or agent-guidance.json should be is refused at once with a sentence
// naming the file, and left in place.
func TestSettingsFilesThatAreFIFOs(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{ModelsFile, FileName, AuthFile, "agent-guidance.json"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "not a regular file") || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%s: %v", what, err)
		}
	}
	check("ReadModels", returns(t, "ReadModels", func() error { _, err := ReadModels(dir); return err }))
	check("ReadAuth", returns(t, "ReadAuth", func() error { _, err := ReadAuth(dir); return err }))
	check("ReadThinkingLevel", returns(t, "ReadThinkingLevel", func() error { _, err := ReadThinkingLevel(dir); return err }))
	check("ReadDefaults", returns(t, "ReadDefaults", func() error { _, err := ReadDefaults(dir); return err }))
	check("UpdateFile", returns(t, "UpdateFile", func() error {
		return UpdateFile(filepath.Join(dir, "agent-guidance.json"), func(o *Object) error { return o.SetValue("subdirectoryContext", false) })
	}))
	if fi, err := os.Lstat(filepath.Join(dir, "agent-guidance.json")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}

func TestSecretEnvNames(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ModelsFile), []byte(`{"providers":{"gw":{"apiKey":"GW_TOKEN","headers":{"X-Key":"GW_HEADER_KEY","X-Plain":"not a name","X-B":"Bearer ${GW_BRACED}"}},"lit":{"apiKey":"sk-literal-123"},"cmd":{"apiKey":"!pass show $NOT_READ"}}}`), 0o644)
	os.WriteFile(filepath.Join(dir, AuthFile), []byte(`{"x":{"type":"api_key","key":"$AUTH_DOLLAR"},"y":{"type":"oauth","access":"SECRET"}}`), 0o600)
	names := SecretEnvNames(dir)
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GW_TOKEN", "GW_HEADER_KEY", "GW_BRACED", "AUTH_DOLLAR"} {
		if !has[want] {
			t.Errorf("%s is missing from %v", want, names)
		}
	}
	if has["not a name"] || has["PATH"] || has["HOME"] || has["NOT_READ"] || has["SECRET"] {
		t.Errorf("names = %v", names)
	}
}
