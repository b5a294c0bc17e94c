package projects_test

import (
	"context"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/internal/screentest"
	"github.com/pi-tui/pi-tui/ui"
)

// Adding the home folder from the UI asks a second time, saying that the
// agent's file tools will reach everything below it; "n" goes back to the
// form without adding, "y" adds.
func TestAddHomeFolderAsksASecondTime(t *testing.T) {
	t.Parallel()
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
	// Waits read the screen as a person does: without escape codes, the
	// dialog's borders and line breaks, since a sentence may wrap.
	s := screentest.Start(t, m, 120, 30, screentest.Prose)
	tm, waitFor := s.TM, s.WaitFor
	key := func(k string) { s.Keys(k) }
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
