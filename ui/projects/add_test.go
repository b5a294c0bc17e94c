package projects_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/ui"
)

// Adding the home folder from the UI asks a second time, saying that the
// agent's file tools will reach everything below it; "n" goes back to the
// form without adding, "y" adds.
func TestAddHomeFolderAsksASecondTime(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pl := paths.Places{Home: home, AgentDir: filepath.Join(home, ".pi", "agent"), DataDir: filepath.Join(home, "data")}
	m, done, err := ui.NewKit(context.Background(), ui.KitOptions{DataDir: pl.DataDir, AgentDir: pl.AgentDir, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { done() })
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30))
	t.Cleanup(func() { tm.Quit() })
	// waitFor waits until the output since the last wait shows all of
	// want, read as a person reads the screen: without escape codes, the
	// dialog's borders and line breaks, since a sentence may wrap.
	var seen bytes.Buffer
	waitFor := func(want ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			seen.Write(b)
			text := strings.Join(strings.Fields(strings.ReplaceAll(ansi.Strip(seen.String()), "│", " ")), " ")
			for _, w := range want {
				if !strings.Contains(text, w) {
					return false
				}
			}
			seen.Reset()
			return true
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	key := func(k string) { tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}) }
	count := func() int {
		h, err := host.Open(context.Background(), pl, host.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		list, err := h.Projects.List(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}

	waitFor("No projects yet")
	key("n")
	waitFor("Add a project")
	tm.Type("~")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	waitFor("is your home folder: the agent's file tools will reach everything below it.", "Add it anyway?", "y add anyway")
	key("n")
	waitFor("ctrl+s add") // back at the form
	if n := count(); n != 0 {
		t.Fatalf("%d projects after answering no", n)
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	waitFor("the agent's file tools will reach everything below it")
	key("y")
	// The notice, not the form's "memory can be added later" hint.
	waitFor("added " + filepath.Base(home))
	if n := count(); n != 1 {
		t.Errorf("%d projects after answering yes", n)
	}
}
