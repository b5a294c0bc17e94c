package ui

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// The Instructions view (i) shows the provider files of the model a
// prompt runs, resolved as the runtimes resolve it, not settings.json's
// default alone: with only an API key, or only models.json, CLAUDE.md is
// listed for an anthropic model, and the prompt is given it too.
func TestInstructionsShowTheProviderFilesOfThePromptsModel(t *testing.T) {
	t.Parallel()
	const claude = "Claude-only rule: answer in haiku."
	project := func(f *fixture) {
		f.add("proj", "proj", true)
		f.write("proj/AGENTS.md", "Shared rule.\n")
		f.write("proj/CLAUDE.md", claude+"\n")
	}
	show := func(t *testing.T, s *session, model string) {
		t.Helper()
		s.waitScreen("› proj", "model: "+model)
		s.keys("enter", "i")
		frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Chain for the project root") })
		if !strings.Contains(frame, `"CLAUDE.md" (provider)`) || !strings.Contains(frame, "model "+model) {
			t.Errorf("the Instructions view does not list CLAUDE.md for %s:\n%s", model, frame)
		}
		if strings.Contains(frame, "not shown") {
			t.Errorf("the Instructions view says provider files are not shown:\n%s", frame)
		}
	}

	t.Run("an API key alone", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.env["ANTHROPIC_API_KEY"] = "a-key"
		project(f)
		c, err := f.host.Runtimes.Model(t.Context(), "")
		if err != nil || c.Model.Provider != "anthropic" {
			t.Fatalf("the prompt's model: %v, %v", c.Model, err)
		}
		s := f.run(120, 40)
		show(t, s, c.Model.Provider+"/"+c.Model.ID)
		s.final()
	})

	t.Run("models.json alone", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		got := make(chan fakemodel.Request, 4)
		fake := fakemodel.New(t, func(_ int, r fakemodel.Request) fakemodel.Reply { got <- r; return fakemodel.Reply{Text: "pong"} })
		f.write(".pi/agent/models.json", fmt.Sprintf(`{"providers":{"anthropic":{"baseUrl":%q,"api":"openai-completions","apiKey":"k","models":[{"id":"m1"}]}}}`, fake.URL))
		project(f)
		c, err := f.host.Runtimes.Model(t.Context(), "")
		if err != nil || c.Model.Provider != "anthropic" {
			t.Fatalf("the prompt's model: %v, %v", c.Model, err)
		}
		s := f.run(120, 40)
		show(t, s, c.Model.Provider+"/"+c.Model.ID)
		// The prompt is given what the view listed.
		s.keys("esc", "enter", "o")
		s.waitFor("No sessions yet")
		s.keys("n")
		s.waitFor("Type a message")
		s.tm.Type("hi")
		s.keys("enter")
		s.waitFor("pong")
		if r := <-got; !strings.Contains(r.System, claude) {
			t.Errorf("the prompt was not given CLAUDE.md:\n%s", r.System)
		}
		s.final()
	})

	// With no model a prompt cannot run: the view says so, and why no
	// provider files are listed.
	t.Run("no model", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		project(f)
		s := f.run(120, 40)
		s.waitScreen("› proj", "model: no model")
		s.keys("enter", "i")
		frame := s.sc.WaitFrame(func(f string) bool {
			return strings.Contains(f, "Chain for the project root") && strings.Contains(f, "Warnings")
		})
		if p := prose(frame); !strings.Contains(p, "no model can run a prompt, so provider files (CLAUDE.md, CODEX.md, GEMINI.md) are not shown: no model is configured") {
			t.Errorf("the Instructions view does not say why no provider file is listed:\n%s", frame)
		}
		s.final()
	})

	// On the pi engine with nothing pi-tui can use and no default, pi picks
	// the model with its own logins: no provider file is sent, and the view
	// says why none is listed.
	t.Run("pi picks the model", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.env["PI_TUI_PI"] = fakePi(t, f.dir("bin"), "1.6.0")
		project(f)
		s := f.run(120, 40)
		s.waitScreen("› proj", "model: pi's own")
		s.keys("enter", "i")
		frame := s.sc.WaitFrame(func(f string) bool {
			return strings.Contains(f, "Chain for the project root") && strings.Contains(f, "Warnings")
		})
		if p := prose(frame); !strings.Contains(p, "the pi engine picks the model itself, so a prompt gets no provider files") {
			t.Errorf("the Instructions view does not say why no provider file is listed:\n%s", frame)
		}
		s.final()
	})
}

func TestAddProjectAndEditAgentsMD(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.dir("src/api")
	s := f.run(100, 30)
	s.waitFor("No projects yet")
	s.keys("n")
	s.waitFor("Add a project", "Memory can be added later")
	s.tm.Type("~/src/a")
	s.keys("tab") // completes to ~/src/api/
	s.waitFor("~/src/api/")
	s.keys("enter") // name field
	s.tm.Type("API")
	s.keys("enter", "y", "enter") // trust, add
	// The row, not the path alone: the dialog drew the path, and the list
	// reloads after the notice.
	s.waitFor("added API", "› API  ~/src/api")

	s.keys("enter")
	s.waitFor("Edit AGENTS.md", "Remove")
	s.keys("a")
	s.waitFor("new file from the starter template")
	s.keys("ctrl+end", "enter")
	s.tm.Type("- Run make check before committing.")
	s.keys("ctrl+s")
	s.waitFor("saved ~/src/api/AGENTS.md")
	got := f.read("src/api/AGENTS.md")
	if !strings.HasPrefix(got, "# Project instructions") || !strings.HasSuffix(got, "- Run make check before committing.\n") {
		t.Errorf("AGENTS.md on disk:\n%s", got)
	}
	list, _ := f.host.Projects.List(context.Background(), true)
	if len(list) != 1 || list[0].Name != "API" || !list[0].Trusted {
		t.Errorf("registry = %+v", list)
	}
	s.final()
}

func TestAgentsMDConflictIsOfferedNotClobbered(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	f.write("proj/AGENTS.md", "original")
	s := f.run(100, 30)
	s.waitFor("proj")
	s.keys("enter", "a")
	s.waitFor("original")
	s.tm.Type("mine: ")
	f.write("proj/AGENTS.md", "theirs")
	s.keys("ctrl+s")
	s.waitFor("Changed on disk", "overwrite with mine")
	if got := f.read("proj/AGENTS.md"); got != "theirs" {
		t.Fatalf("the external change was clobbered: %q", got)
	}
	s.keys("k") // keep editing: the text is still there
	s.tm.Type("more ")
	s.waitFor("more ")
	s.keys("ctrl+s")
	s.waitFor("Changed on disk")
	s.keys("o")
	s.waitFor("saved ~/proj/AGENTS.md")
	if got := f.read("proj/AGENTS.md"); got != "mine: more original\n" {
		t.Errorf("after overwrite: %q", got)
	}
	s.final()
}

func TestAgentsMDSaysWhichFileIsInEffect(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	f.write("proj/AGENTS.md", "base rules")
	f.write("proj/AGENTS.override.md", "override rules")
	s := f.run(120, 30)
	s.waitFor("proj")
	s.keys("enter", "a")
	s.waitFor("AGENTS.override.md wins here", "ctrl+o edits AGENTS.override.md")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlO})
	s.waitFor("override rules")
	s.final()
}

func TestUnsavedEditorAsksBeforeQuitAndClose(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	f.write("proj/AGENTS.md", "text")
	s := f.run(100, 30)
	s.waitFor("proj")
	s.keys("enter", "a")
	s.waitFor("text")
	s.tm.Type("x")
	s.keys("ctrl+c")
	s.waitFor("Quit pi-tui?")
	s.keys("n", "esc") // back to the editor, then esc asks again
	s.waitFor("Unsaved changes", "discard and close")
	s.keys("s") // save and close
	s.waitFor("saved ~/proj/AGENTS.md")
	if got := f.read("proj/AGENTS.md"); got != "xtext\n" {
		t.Errorf("saved %q", got)
	}
	s.final()
}

func TestGlobalAgentsFromSettings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.run(120, 30)
	s.waitFor("1 Projects")
	s.keys("3")
	s.waitFor("Global instructions", "not created yet")
	s.keys("enter")
	s.waitFor("ctrl+s save") // the editor, not the Settings row that names the file too
	s.tm.Type("Be concise.")
	s.keys("ctrl+s")
	s.waitFor("saved ~/.pi/agent/AGENTS.md")
	if got := f.read(".pi/agent/AGENTS.md"); got != "Be concise.\n" {
		t.Errorf("global AGENTS.md = %q", got)
	}
	s.keys("esc")
	s.waitFor("12 bytes")
	// The subdirectory-context switch writes agent-guidance.json, keeping other keys.
	f.write(".pi/agent/agent-guidance.json", `{"providers": {"anthropic": ["CLAUDE.md"]}}`)
	s.keys("down", "enter")
	s.waitFor("subdirectory context off")
	if got := f.read(".pi/agent/agent-guidance.json"); !strings.Contains(got, `"subdirectoryContext": false`) || !strings.Contains(got, `"anthropic": ["CLAUDE.md"]`) {
		t.Errorf("agent-guidance.json = %s", got)
	}
	s.final()
}

func TestTypedWordsNeverActAsKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	f.write("proj/AGENTS.md", "start")
	s := f.run(100, 30)
	s.waitFor("proj")
	s.keys("enter", "a")
	s.waitFor("start")
	// Without bracketed paste, a chunk of typed text arrives as one key
	// message; the words in it must be text, not esc/tab/enter.
	for _, word := range []string{"esc", "d", "tab", "enter"} {
		s.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(word)})
	}
	s.waitFor("escdtabenterstart")
	s.keys("ctrl+s")
	s.waitFor("saved ~/proj/AGENTS.md")
	if got := f.read("proj/AGENTS.md"); got != "escdtabenterstart\n" {
		t.Errorf("saved %q", got)
	}
	s.final()
}

func TestNewAgentsMDBesideClaudeMDSaysItWillWin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	f.write("proj/CLAUDE.md", "claude rules")
	s := f.run(120, 30)
	s.waitFor("proj")
	s.keys("enter", "a")
	s.waitFor("CLAUDE.md is in effect (no AGENTS.md yet)", "which then wins")
	s.final()
}

// TestCtrlEEditsAFileTooOddForTheEditor: the editor refuses an AGENTS.md
// that is not UTF-8 and advises ctrl+e; ctrl+e runs $EDITOR on it and the
// editor then opens what $EDITOR left.
func TestCtrlEEditsAFileTooOddForTheEditor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	path := f.write("proj/AGENTS.md", "caf\xe9\n")
	f.env["EDITOR"] = f.write("bin/fix", "#!/bin/sh\nprintf 'now valid\\n' > \"$1\"\n")
	os.Chmod(f.env["EDITOR"], 0o755)
	var ran []string
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	env := func(k string) string { return f.env[k] }
	m := New(Options{Host: f.host, Renderer: r, Env: env,
		Exec: func(cmd *exec.Cmd, done func(error) tea.Msg) tea.Cmd {
			ran = cmd.Args
			return func() tea.Msg { return done(cmd.Run()) }
		}})
	s := newSession(t, m, 100, 30)
	s.waitFor("proj")
	s.keys("enter", "a")
	s.waitFor("not valid UTF-8", "ctrl+e open in $EDITOR")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlE})
	s.waitFor("now valid", "reloaded")
	s.final()
	if len(ran) != 2 || ran[1] != path {
		t.Errorf("$EDITOR ran as %q", ran)
	}
}

// TestFindUndoAndFinalNewlineInAgentsMD: ctrl+f finds text in the
// AGENTS.md editor, ctrl+z undoes, and the saved file ends with a newline.
func TestFindUndoAndFinalNewlineInAgentsMD(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	f.write("proj/AGENTS.md", "# Rules\n- run tests\n- run lint")
	s := f.run(100, 30)
	s.waitFor("proj")
	s.keys("enter", "a")
	s.waitFor("run lint")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlF})
	s.tm.Type("run")
	s.waitFor("find: run", "2 matches")
	s.keys("enter") // the next match: line 3
	s.waitFor("ln 3, col 3")
	s.keys("esc")
	s.tm.Type("always ")
	s.tm.Type("oops")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlZ}) // the typing is one step
	s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlY})
	s.keys("backspace", "backspace", "backspace", "backspace", "ctrl+s")
	s.waitFor("saved ~/proj/AGENTS.md")
	if got := f.read("proj/AGENTS.md"); got != "# Rules\n- run tests\n- always run lint\n" {
		t.Errorf("saved %q", got)
	}
	s.final()
}

// The AGENTS.md editor's header keeps the end of a long path (the
// project's folder and the file) and says whole that the file is new, from
// the starter template; the breadcrumb above it keeps the file's name,
// and the keys under the text all show. The header was cut at the
// screen's edge, losing the project's folder and the note.
func TestEditorHeaderKeepsThePathsEndAndItsNote(t *testing.T) {
	t.Parallel()
	for _, size := range narrowSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.add(deepProject, "shop", true)
			s := f.run(size.w, size.h)
			s.waitScreen("› shop")
			s.keys("enter", "a")
			frame := s.waitKeys("new file from the starter template; ctrl+s creates it",
				"ctrl+s save · esc close · ctrl+f find · ctrl+z undo · ctrl+e $EDITOR · f1 help")
			assertFrame(t, frame, size.w, size.h)
			lines := strings.Split(frame, "\n")
			if crumb := strings.TrimSpace(lines[0]); !strings.Contains(crumb, "› ~/") || !strings.HasSuffix(crumb, "/AGENTS.md") && !strings.HasSuffix(crumb, "/AGENTS.md ? help") {
				t.Errorf("the breadcrumb does not keep the file's name: %q", crumb)
			}
			if head := strings.TrimSpace(lines[1]); !strings.HasPrefix(head, "~/") || !strings.HasSuffix(head, "/the/shop-backend-service/AGENTS.md") {
				t.Errorf("the header does not keep the path's start and its last folders: %q", head)
			}
			s.final()
		})
	}
}
