package pisettings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The project's .pi/settings.json is merged over the global file as pi
// merges them (objects key by key, arrays replaced), and only when the
// project is trusted.
func TestLoadMergesGlobalAndProjectAsPi(t *testing.T) {
	agent, root, home := t.TempDir(), t.TempDir(), "/home/u"
	writeFile(t, filepath.Join(agent, FileName), `{
  "compaction": {"enabled": false, "reserveTokens": 1000},
  "retry": {"maxRetries": 5},
  "skills": ["a", "b"],
  "shellPath": "~/bin/zsh",
  "defaultProjectTrust": "always"
}`)
	writeFile(t, filepath.Join(root, ".pi", FileName), "\ufeff"+`{
  "compaction": {"reserveTokens": 2000},
  "retry": {"enabled": false, "baseDelayMs": 10},
  "skills": ["c"],
  "shellCommandPrefix": "set -e",
  "defaultProjectTrust": "never"
}`)
	e := Load(agent, root, true)
	if len(e.Problems) > 0 {
		t.Fatal(e.Problems)
	}
	if c := e.Compaction(); c != (Compaction{Enabled: false, ReserveTokens: 2000, KeepRecentTokens: 20000}) {
		t.Errorf("compaction = %+v", c)
	}
	r := e.Retry()
	if r.Enabled || r.MaxRetries == nil || *r.MaxRetries != 5 || r.BaseDelay == nil || *r.BaseDelay != 10*time.Millisecond {
		t.Errorf("retry = %+v", r)
	}
	if got := e.merged["skills"].([]any); len(got) != 1 || got[0] != "c" {
		t.Errorf("skills = %q; a project's array replaces the global one", got)
	}
	if g, p := e.ResourcePaths("skills"); strings.Join(g, ",") != "a,b" || strings.Join(p, ",") != "c" {
		t.Errorf("skills paths = %q %q; pi reads both lists", g, p)
	}
	if sh := e.Shell(home); sh.Path != "/home/u/bin/zsh" || sh.Prefix != "set -e" {
		t.Errorf("shell = %+v", sh)
	}
	if d := e.DefaultProjectTrust(); d != TrustAlways {
		t.Errorf("defaultProjectTrust = %q; a project must not set its own", d)
	}

	u := Load(agent, root, false)
	if c := u.Compaction(); c.ReserveTokens != 1000 {
		t.Errorf("untrusted project's settings were used: %+v", c)
	}
	if sh := u.Shell(home); sh.Prefix != "" {
		t.Errorf("untrusted project's shellCommandPrefix was used: %+v", sh)
	}
	if g, p := u.ResourcePaths("skills"); strings.Join(g, ",") != "a,b" || p != nil {
		t.Errorf("untrusted skills paths = %q %q", g, p)
	}

	none := Load(t.TempDir(), "", false)
	if c := none.Compaction(); c != (Compaction{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}) {
		t.Errorf("defaults = %+v", c)
	}
	if r := none.Retry(); !r.Enabled || r.MaxRetries != nil || r.BaseDelay != nil {
		t.Errorf("retry defaults = %+v", r)
	}
	if !none.EnableSkillCommands() || none.DefaultProjectTrust() != TrustAsk {
		t.Errorf("enableSkillCommands / defaultProjectTrust defaults wrong")
	}
}

// A broken settings.json is reported in one sentence that names the file,
// the line and the column, by every reader and writer, and is never
// rewritten.
func TestMalformedSettingsNamesFileLineAndColumn(t *testing.T) {
	agent, root := t.TempDir(), t.TempDir()
	global := filepath.Join(agent, FileName)
	bad := "{\n  \"defaultModel\": \"x\",\n  }\n"
	writeFile(t, global, bad)
	project := filepath.Join(root, ".pi", FileName)
	writeFile(t, project, "{\"a\": 1} {")

	e := Load(agent, root, true)
	if len(e.Problems) != 2 {
		t.Fatalf("problems = %v", e.Problems)
	}
	want := global + " is not valid JSON at line 3, column 3"
	if msg := e.Problems[0].Error(); !strings.HasPrefix(msg, want) || strings.Contains(msg, "\n") {
		t.Errorf("global problem = %q, want prefix %q", msg, want)
	}
	if msg := e.Problems[1].Error(); !strings.Contains(msg, project+" is not valid JSON at line 1, column 10") {
		t.Errorf("project problem = %q", msg)
	}
	if c := e.Compaction(); !c.Enabled || c.ReserveTokens != 16384 {
		t.Errorf("a broken file must count as empty: %+v", c)
	}
	if _, err := ReadDefaults(agent); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("ReadDefaults = %v", err)
	}
	err := UpdateFile(global, func(o *Object) error { return o.SetValue("defaultModel", "y") })
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("UpdateFile = %v", err)
	}
	if data, _ := os.ReadFile(global); string(data) != bad {
		t.Errorf("the broken file was rewritten: %q", data)
	}
	writeFile(t, global, `["not", "an", "object"]`)
	if _, err := ReadDefaults(agent); err == nil || !strings.Contains(err.Error(), global) {
		t.Errorf("array: %v", err)
	}
	e = Load(agent, "", false)
	if len(e.Problems) != 1 || !strings.Contains(e.Problems[0].Error(), "not a JSON object") {
		t.Errorf("array problems = %v", e.Problems)
	}
}

func TestSettingsOfTheWrongTypeWarnAndUseTheDefault(t *testing.T) {
	agent := t.TempDir()
	writeFile(t, filepath.Join(agent, FileName), `{"compaction": {"enabled": "no", "reserveTokens": -5}, "shellPath": 3}`)
	e := Load(agent, "", false)
	if c := e.Compaction(); !c.Enabled || c.ReserveTokens != 16384 {
		t.Errorf("compaction = %+v", c)
	}
	if sh := e.Shell(""); sh.Path != "" {
		t.Errorf("shell = %+v", sh)
	}
	if len(e.Warnings) != 3 {
		t.Errorf("warnings = %q", e.Warnings)
	}
}
