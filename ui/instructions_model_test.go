package ui

import (
	"fmt"
	"strings"
	"testing"

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
