package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// echoUser answers with the user message it was sent.
func echoUser(n int, req fakemodel.Request) fakemodel.Reply {
	return fakemodel.Reply{Text: "GOT: " + req.LastUser}
}

// `prompt` and `rpc` expand /skill:name and /template as pi does before
// the text goes to the model.
func TestPromptAndRPCExpandSkillsAndTemplates(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_, root := modelRig(t, c, echoUser)
	agentDir := filepath.Join(c.env["HOME"], ".pi", "agent")
	writeFile(t, filepath.Join(agentDir, "skills", "pdf", "SKILL.md"), "---\ndescription: Fill PDFs\n---\nUse pdftk.")
	writeFile(t, filepath.Join(root, ".pi", "prompts", "review.md"), "---\ndescription: Review\n---\nReview $1 for ${2:-bugs}.")
	skillDir := filepath.Join(agentDir, "skills", "pdf")

	code, out, errs := c.run("", "prompt", "--project", "mono", "/review main.go 'data races'")
	if code != 0 || out != "GOT: Review main.go for data races.\n" {
		t.Errorf("prompt template = %d %q %q", code, out, errs)
	}
	code, out, errs = c.run("", "prompt", "--project", "mono", "/skill:pdf fill it")
	want := fmt.Sprintf("GOT: <skill name=\"pdf\" location=\"%s/SKILL.md\">\nReferences are relative to %s.\n\nUse pdftk.\n</skill>\n\nfill it\n", skillDir, skillDir)
	if code != 0 || out != want {
		t.Errorf("prompt skill = %d %q %q\nwant %q", code, out, errs, want)
	}

	r := startRPC(t, c, "--project", "mono")
	ev := r.prompt("/review api.go")
	end := typed(ev, "agent_end")
	if len(end) != 1 || !strings.Contains(fmt.Sprint(end[0]["text"]), "GOT: Review api.go for bugs.") {
		t.Errorf("rpc template: %v", end)
	}
	c.ok("projects", "untrust", "mono")
	ev = r.prompt("/review api.go")
	if end := typed(ev, "agent_end"); len(end) != 1 || !strings.Contains(fmt.Sprint(end[0]["text"]), "GOT: /review api.go") {
		t.Errorf("an untrusted project's template expanded over rpc: %v", end)
	}
}
