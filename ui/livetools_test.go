package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// TestLiveBashOutput: a bash call's output shows under its line while the
// command runs (it waits on a FIFO the test opens only once the output is
// on screen), with its elapsed time by the UI's clock; its last lines stay
// when it ends; ctrl+o expands one call, the latest or the one selected
// with alt+↑, and collapses it again, leaving the others as they are.
func TestLiveBashOutput(t *testing.T) {
	t.Parallel()
	gate := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o644); err != nil {
		t.Fatal(err)
	}
	commands := []string{
		"for i in 1 2 3 4 5 6 7; do echo a$i; done; read _ < " + gate + "; echo a-end",
		"for i in 1 2 3 4 5 6 7; do echo b$i; done",
	}
	r := newKitRig(t, 100, 50, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n < len(commands) {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "c" + itoa(n), Name: "bash", Args: map[string]string{"command": commands[n]}}}}
		}
		return fakemodel.Reply{Text: "both ran"}
	}, true)
	if err := r.m.opts.Host.SetPermissionMode(context.Background(), "full-auto"); err != nil {
		t.Fatal(err)
	}
	r.chat()
	r.say("run them")
	r.waitFor("… bash for i in 1 2 3 4 5 6 7; do echo a$i; done; read _ <", "· 0s", "│ a7", "… 2 earlier lines")
	if len(r.fake.Requests()) != 1 {
		t.Fatal("the command ended before its output was shown")
	}
	r.wait(5 * time.Second)
	r.waitFor("· 5s")
	r.wait(70 * time.Second)
	r.waitFor("· 1m 15s")

	f, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()
	r.waitFor("both ran")

	alt := func(k tea.KeyType) { r.tm.Send(tea.KeyMsg{Type: k, Alt: true}) }
	r.keys("ctrl+o") // the latest call
	r.waitFor("$ for i in 1 2 3 4 5 6 7; do echo b$i; done", "│ b1")
	alt(tea.KeyUp) // selects the latest
	alt(tea.KeyUp) // then the one before
	r.waitFor("▸ ✓ bash for i in 1 2 3 4 5 6 7; do echo a$i")
	r.keys("ctrl+o")
	r.waitFor("│ a1")
	r.keys("ctrl+o") // collapses it again
	r.waitFor("… 3 earlier lines")
	final := r.final()
	for _, want := range []string{"│ a-end", "… 3 earlier lines", "│ b1", "│ b7"} {
		if !strings.Contains(final, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, final)
		}
	}
	if strings.Contains(final, "│ a1") || strings.Contains(final, "… 2 earlier lines") {
		t.Errorf("ctrl+o changed more than the selected call:\n%s", final)
	}
}
