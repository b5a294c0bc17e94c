package ui

import (
	"fmt"
	"testing"
)

// Settings says whole what is wrong: its keys, the command palette's
// among them, wrap under its title; the Engine row says how to get pi;
// the `!` lines under the last setting (shown once the cursor is past it)
// and the status bar's warnings wrap instead of running off the screen.
func TestSettingsSentencesWrap(t *testing.T) {
	t.Parallel()
	for _, size := range narrowSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.write(".pi/agent/settings.json", "{\"defaultProvider\": \"anthropic\",\n \"defaultModel\": 3, \"x\": }")
			f.write(".pi/agent/models.json", `{"providers": {"fake": {"baseUrl": 3}}}`)
			s := f.run(size.w, size.h)
			const settingsBad = "⚠ ~/.pi/agent/settings.json:2:26 is not valid JSON (see Settings)"
			const modelsBad = "~/.pi/agent/models.json is not valid JSON at line 1, column 36: providers.baseUrl must be a string, not number"
			frame := s.waitWhole("No projects yet", settingsBad, modelsBad)
			assertFrame(t, frame, size.w, size.h)
			s.keys("3")
			frame = s.waitKeys("Settings enter change · ↑/↓ move · d delete rule · r reload · ctrl+k command palette · ? help", "› Global instructions")
			assertFrame(t, frame, size.w, size.h)
			for range 6 {
				s.keys("down")
			}
			frame = s.waitWhole("› Engine auto — runs the built-in engine: pi not found: install pi (npm install -g @earendil-works/pi-coding-agent) or set PI_TUI_PI to its path")
			assertFrame(t, frame, size.w, size.h)
			s.keys("down", "down") // past the last setting: its warnings show
			frame = s.waitWhole("› anthropic", "! "+modelsBad, "! ~/.pi/agent/settings.json is not valid JSON at line 2, column 26")
			assertFrame(t, frame, size.w, size.h)
			s.final()
		})
	}
}

// The review screen's keys wrap at 60 columns; the last ones were cut.
func TestReviewKeysWrapAtSixtyColumns(t *testing.T) {
	t.Parallel()
	r := reviewRig(t, 60, 20)
	r.say("write")
	r.waitFor("done: write")
	r.command("/changes", "Review · the session's file changes")
	frame := r.waitKeys("enter/ctrl+o diff · u undo · r redo · U undo it and every later one · esc/q close", "notes.txt")
	assertFrame(t, frame, 60, 20)
	r.final()
}

// The help screen's footer says whole how to scroll and close it at 60
// columns ("press ? or esc to" lost its end), and the last key line can
// still be scrolled to.
func TestHelpFooterWrapsAtSixtyColumns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	s := f.run(60, 20)
	s.waitScreen("› proj", "model: no model")
	s.keys("?")
	frame := s.waitKeys("Keys · Projects", "↑/↓ pgup/pgdn scroll · press ? or esc to close")
	assertFrame(t, frame, 60, 20)
	s.keys("end")
	frame = s.waitKeys("ctrl+k command palette: go to a session, project, setting or command", "press ? or esc to close")
	assertFrame(t, frame, 60, 20)
	s.final()
}
