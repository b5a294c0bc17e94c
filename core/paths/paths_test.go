package paths

import (
	"path/filepath"
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
