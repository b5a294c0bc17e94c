package ui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// In the chat, typing / shows the commands (the chat's own, the skills
// and the prompt templates) with their descriptions; tab completes; enter
// sends a skill or template expanded as pi expands it; an unknown command
// says so and keeps the text.
func TestChatCompletesAndExpandsSkillsAndTemplates(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 110, 32, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: fmt.Sprintf("reply %d: %s", n, strings.ReplaceAll(req.LastUser, "\n", " "))}
	}, true)
	agent := filepath.Join(r.home, ".pi", "agent")
	writeAt(t, filepath.Join(agent, "skills", "pdf", "SKILL.md"), "---\ndescription: Fill in PDF forms\n---\nUse pdftk.")
	writeAt(t, filepath.Join(r.home, "proj", ".pi", "prompts", "review.md"), "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1 for ${2:-bugs}.")
	r.chat()

	r.tm.Type("/re")
	r.waitFor("/review <file>", "Review a file")
	r.keys("tab")
	r.tm.Type("main.go")
	r.keys("enter")
	r.waitFor("reply 0: Review main.go for bugs.")

	r.tm.Type("/")
	r.waitFor("/compact")
	r.tm.Type("skill:")
	r.waitFor("/skill:pdf", "Fill in PDF forms")
	r.keys("tab")
	r.tm.Type("fill it")
	r.keys("enter")
	r.waitFor("reply 1:")
	reqs := r.fake.Requests()
	skillDir := filepath.Join(agent, "skills", "pdf")
	want := "<skill name=\"pdf\" location=\"" + skillDir + "/SKILL.md\">\nReferences are relative to " + skillDir + ".\n\nUse pdftk.\n</skill>\n\nfill it"
	if got := reqs[len(reqs)-1].LastUser; got != want {
		t.Errorf("sent %q\nwant %q", got, want)
	}

	r.tm.Type("/nope x")
	r.keys("enter")
	r.waitFor("unknown command /nope", "› /nope x")
}
