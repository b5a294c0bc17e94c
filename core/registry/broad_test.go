package registry

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/paths"
)

func TestCheckBroadAsksForRootsThatHoldTooMuch(t *testing.T) {
	ctx := context.Background()
	reg, _ := newRegistry(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home", "me")
	pl := paths.Places{Home: home, AgentDir: filepath.Join(base, "tools", "pi", "agent"), DataDir: filepath.Join(base, "var", "pi-tui")}
	for _, d := range []string{filepath.Join(home, "src", "api"), pl.AgentDir, pl.DataDir, filepath.Join(base, "other")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(home, filepath.Join(base, "home-link")); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/":                                 "the root of the file system",
		home:                                "your home folder",
		filepath.Join(base, "home-link"):    "your home folder", // canonical paths are compared
		filepath.Join(base, "home"):         "a folder above your home folder",
		filepath.Join(base, "tools"):        "pi's agent dir",
		pl.AgentDir:                         "pi's agent dir",
		filepath.Join(base, "var"):          "pi-tui's data dir",
		filepath.Join(home, "src", "api"):   "",
		filepath.Join(base, "other"):        "",
		filepath.Join(base, "not-a-folder"): "", // Add says what is wrong
	} {
		err := reg.CheckBroad(ctx, path, pl)
		var be *BroadRootError
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v, want no question", path, err)
		case want != "" && (!errors.As(err, &be) || !strings.Contains(err.Error(), want) ||
			!strings.HasSuffix(err.Error(), ": the agent's file tools will reach everything below it")):
			t.Errorf("%s: %v, want a question saying %q", path, err, want)
		}
	}
	// Once registered (after the user confirmed), adding it again asks
	// nothing: nothing new is reached.
	if _, _, err := reg.Add(ctx, home, "me", false); err != nil {
		t.Fatal(err)
	}
	if err := reg.CheckBroad(ctx, filepath.Join(base, "home-link"), pl); err != nil {
		t.Errorf("registered home: %v", err)
	}
}
