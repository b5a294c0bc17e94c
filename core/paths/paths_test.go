package paths

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestResolve(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	get := func(k string) string { return env[k] }
	p, err := Resolve("", "", get)
	if err != nil || p.AgentDir != "/home/u/.pi/agent" || p.DataDir != "/home/u/.local/share/pi-tui" {
		t.Fatalf("defaults = %+v, %v", p, err)
	}
	env["PI_CODING_AGENT_DIR"] = "~/profiles/work"
	env["XDG_DATA_HOME"] = "/xdg"
	if p, _ = Resolve("", "", get); p.AgentDir != "/home/u/profiles/work" || p.DataDir != "/xdg/pi-tui" {
		t.Errorf("from env = %+v", p)
	}
	env["XDG_DATA_HOME"] = "relative/xdg"
	if p, _ = Resolve("", "", get); p.DataDir != "/home/u/.local/share/pi-tui" {
		t.Errorf("a relative XDG_DATA_HOME was used: %s", p.DataDir)
	}
	env["PI_TUI_DATA_DIR"] = "~"
	if p, _ = Resolve("", "", get); p.DataDir != "/home/u" {
		t.Errorf("PI_TUI_DATA_DIR=~ gave %s", p.DataDir)
	}
	if p, _ = Resolve("/a", "/d", get); p.AgentDir != "/a" || p.DataDir != "/d" || p.Database() != filepath.Join("/d", "pi-tui.db") {
		t.Errorf("flags = %+v", p)
	}
	if _, err := Resolve("", "", func(string) string { return "" }); err == nil {
		t.Error("no HOME and no flags should be an error")
	}
}

func TestTildeAndExpand(t *testing.T) {
	for in, want := range map[string]string{"/home/u": "~", "/home/u/x/y": "~/x/y", "/home/user2": "/home/user2", "/etc": "/etc"} {
		if got := Tilde(in, "/home/u"); got != want {
			t.Errorf("Tilde(%s) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"~": "/h", "~/a": "/h/a", "~bob/a": "~bob/a", "/x": "/x"} {
		if got := ExpandHome(in, "/h"); got != want {
			t.Errorf("ExpandHome(%s) = %s, want %s", in, got, want)
		}
	}
}

// Where sessions go, as pi decides it: the variable over the setting, a
// setting's ~ and relative path resolved, and a settings file that cannot
// be used (broken, a FIFO nobody writes to) naming no folder instead of
// stopping the start.
func TestSessionFolder(t *testing.T) {
	agent := t.TempDir()
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	write := func(body string) {
		t.Helper()
		os.Remove(filepath.Join(agent, "settings.json"))
		if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := SessionFolder(agent, "/home/u", get); got != "" {
		t.Errorf("no setting, no variable: %q", got)
	}
	for body, want := range map[string]string{
		`{"sessionDir":"/srv/sessions"}`: "/srv/sessions",
		`{"sessionDir":"~/s"}`:           "/home/u/s",
		`{"sessionDir":"rel/s"}`:         filepath.Join(agent, "rel", "s"),
		`{"sessionDir":7}`:               "",
		`{"sessionDir":`:                 "",
	} {
		write(body)
		if got := SessionFolder(agent, "/home/u", get); got != want {
			t.Errorf("%s: %q, want %q", body, got, want)
		}
	}
	env[SessionEnv] = "/from/env"
	if got := SessionFolder(agent, "/home/u", get); got != "/from/env" {
		t.Errorf("the variable did not win over the setting: %q", got)
	}
	delete(env, SessionEnv)
	os.Remove(filepath.Join(agent, "settings.json"))
	if err := syscall.Mkfifo(filepath.Join(agent, "settings.json"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if got := SessionFolder(agent, "/home/u", get); got != "" {
		t.Errorf("a FIFO named a folder: %q", got)
	}
	env["HOME"] = "/home/u"
	if p, err := Resolve(agent, "/d", get); err != nil || p.SessionDir != "" {
		t.Errorf("Resolve: %+v %v", p, err)
	}
	write(`{"sessionDir":"/srv/sessions"}`)
	if p, err := Resolve(agent, "/d", get); err != nil || p.SessionDir != "/srv/sessions" {
		t.Errorf("Resolve did not work out the session folder: %+v %v", p, err)
	}
}
