package settings

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Settings starts a load each time it is shown, after a save and when a
// project changes, and the loads end in any order. A load that started
// before an approval rule was added and ends after the one that started
// later must not put "none yet" back under Approval rules; nor may an
// older look for pi hide the pi a newer one found. The results are
// delivered newer first, as a busy machine may.
func TestAnOlderLoadDoesNotReplaceANewerOne(t *testing.T) {
	home := t.TempDir()
	pl := paths.Places{Home: home, AgentDir: filepath.Join(home, ".pi", "agent"), DataDir: filepath.Join(home, "data")}
	ctx := context.Background()
	// The host's engines find pi with the host's environment.
	env := map[string]string{}
	h, err := host.Open(ctx, pl, host.Options{Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	root := filepath.Join(home, "proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.Projects.Add(ctx, root, "proj", true); err != nil {
		t.Fatal(err)
	}
	pi := filepath.Join(home, "pi")
	if err := os.WriteFile(pi, []byte("#!/bin/sh\necho 1.6.0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := New(h, h.Runtimes, common.NewUI(common.NewStyles(lipgloss.NewRenderer(io.Discard))), func(k string) string { return env[k] }, nil)
	m.SetSize(140, 80)
	screen := func() string { return ansi.Strip(m.View()) }

	// The older load and look run first: no rule yet, no pi.
	olderLoad, olderFind := m.load(), m.findPrograms()
	oldRules, oldPi := olderLoad(), olderFind()
	if err := h.Approvals.Add(ctx, root, approvals.Rule{Tool: "bash", Pattern: "go vet *"}); err != nil {
		t.Fatal(err)
	}
	env["PI_TUI_PI"] = pi
	newRules, newPi := m.load()(), m.findPrograms()()

	for _, msg := range []tea.Msg{newRules, newPi} {
		m.Update(msg)
	}
	if s := screen(); !strings.Contains(s, "go vet *") || !strings.Contains(s, "runs pi 1.6.0") {
		t.Fatalf("the newer load is not shown:\n%s", s)
	}
	for _, msg := range []tea.Msg{oldRules, oldPi} {
		m.Update(msg)
	}
	s := screen()
	if !strings.Contains(s, "go vet *") || strings.Contains(s, "none yet") {
		t.Errorf("an older load replaced the rules a newer one showed:\n%s", s)
	}
	if !strings.Contains(s, "runs pi 1.6.0") {
		t.Errorf("an older look for pi replaced the pi a newer one found:\n%s", s)
	}
}
