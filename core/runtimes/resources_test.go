package runtimes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

func (r *rig) writeAgent(rel, body string) {
	p := filepath.Join(r.h.Places.AgentDir, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// reasons lists the reasons of the runtime events of kind T.
func reasons[T events.Event](evs []events.Event) string {
	var out []string
	for _, e := range find[T](evs) {
		switch e := any(e).(type) {
		case events.RuntimeLaunched:
			out = append(out, e.Reason)
		case events.RuntimeRetired:
			out = append(out, e.Reason)
		case events.RuntimeReused:
			out = append(out, e.Reason)
		}
	}
	return strings.Join(out, ",")
}

// A project untrusted in pi (trust.json) is untrusted at the next
// prompt: the runtime is retired with trust-changed and the nested
// instructions stop.
func TestTrustChangedInPiRetiresTheRuntime(t *testing.T) {
	r := newRig(t, readThenAnswer, nil)
	r.prompt("read")
	if ends := find[events.ToolEnded](r.take()); strings.Join(ends[0].Preflight.Labels, ",") != "AGENTS.md,packages/api/AGENTS.md" {
		t.Fatalf("trusted chain = %v", ends[0].Preflight.Labels)
	}
	// pi writes its decision for the folder.
	r.writeAgent(registry.TrustFile, fmt.Sprintf("{\n  %q: false\n}\n", r.root))
	r.prompt("read again")
	ev := r.take()
	if got := reasons[events.RuntimeRetired](ev); got != ReasonTrustChanged {
		t.Errorf("retired: %q, want %s", got, ReasonTrustChanged)
	}
	if got := reasons[events.RuntimeLaunched](ev); got != ReasonTrustChanged {
		t.Errorf("launched: %q", got)
	}
	if ends := find[events.ToolEnded](ev); strings.Join(ends[0].Preflight.Labels, ",") != "AGENTS.md" {
		t.Errorf("untrusted chain = %v", ends[0].Preflight.Labels)
	}
}

// Skills reach the system prompt as pi lists them, the project's only
// when it is trusted; the project's .pi/settings.json decides how bash
// runs only when trusted too; a settings change relaunches the runtime.
func TestSkillsAndSettingsReachTheRuntime(t *testing.T) {
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult == "" {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: fmt.Sprint("b", n), Name: "bash", Args: map[string]string{"command": `echo "from=$FROM_PROJECT"`}}}}
		}
		return fakemodel.Reply{Text: req.LastToolResult}
	}
	r := newRig(t, script, func(o *Options) {
		o.Approve = func(context.Context, events.Approval) (bool, error) { return true, nil }
	})
	r.writeAgent("skills/pdf/SKILL.md", "---\ndescription: Fill PDF forms\n---\nUse pdftk.")
	r.write(".pi/skills/deploy/SKILL.md", "---\ndescription: Deploy <prod>\n---\nRun make deploy.")
	r.write(".pi/settings.json", `{"shellCommandPrefix": "export FROM_PROJECT=yes"}`)
	userSkill := filepath.Join(r.h.Places.AgentDir, "skills", "pdf", "SKILL.md")
	projectSkill := filepath.Join(r.root, ".pi", "skills", "deploy", "SKILL.md")

	res := r.prompt("go")
	reqs := r.fake.Requests()
	sys := reqs[len(reqs)-1].System
	want := "<available_skills>\n  <skill>\n    <name>deploy</name>\n    <description>Deploy &lt;prod&gt;</description>\n    <location>" + projectSkill +
		"</location>\n  </skill>\n  <skill>\n    <name>pdf</name>\n    <description>Fill PDF forms</description>\n    <location>" + userSkill + "</location>\n  </skill>\n</available_skills>"
	if !strings.Contains(sys, "The following skills provide specialized instructions for specific tasks.") || !strings.Contains(sys, want) {
		t.Errorf("system prompt lacks pi's skill listing:\n%s", sys)
	}
	if !strings.Contains(res.Text, "from=yes") {
		t.Errorf("the trusted project's shellCommandPrefix did not run: %q", res.Text)
	}
	r.take()

	list, _ := r.h.Projects.List(context.Background(), true)
	if err := r.h.Projects.SetTrusted(context.Background(), list[0].ID, false); err != nil {
		t.Fatal(err)
	}
	res = r.prompt("go")
	reqs = r.fake.Requests()
	sys = reqs[len(reqs)-1].System
	if strings.Contains(sys, "deploy") || !strings.Contains(sys, "<name>pdf</name>") {
		t.Errorf("untrusted: project skill listed or user skill missing:\n%s", sys)
	}
	if !strings.Contains(res.Text, "from=\n") && !strings.HasSuffix(strings.TrimSpace(res.Text), "from=") {
		t.Errorf("an untrusted project's shellCommandPrefix ran: %q", res.Text)
	}
	r.take()

	r.writeAgent("settings.json", `{"defaultProvider":"fake","defaultModel":"m1","compaction":{"reserveTokens":1000}}`)
	r.prompt("go")
	if got := reasons[events.RuntimeLaunched](r.take()); got != ReasonSettingsChanged {
		t.Errorf("after a settings change: launched %q, want %s", got, ReasonSettingsChanged)
	}
}

// The front ends expand /skill:name and /template before prompting; the
// project's templates only when it is trusted.
func TestExpandSkillsAndTemplates(t *testing.T) {
	r := newRig(t, readThenAnswer, nil)
	r.writeAgent("skills/pdf/SKILL.md", "---\ndescription: Fill PDF forms\n---\n\nUse pdftk.\n")
	r.write(".pi/prompts/review.md", "---\ndescription: Review\n---\nReview $1 for ${2:-bugs}.")
	ctx := context.Background()
	skill := filepath.Join(r.h.Places.AgentDir, "skills", "pdf")
	got, err := r.m.Expand(ctx, r.sid, "/skill:pdf fill form.pdf")
	want := `<skill name="pdf" location="` + skill + `/SKILL.md">` + "\nReferences are relative to " + skill + ".\n\nUse pdftk.\n</skill>\n\nfill form.pdf"
	if err != nil || got != want {
		t.Errorf("skill = %q, %v\nwant %q", got, err, want)
	}
	if got, _ := r.m.Expand(ctx, r.sid, "/review main.go"); got != "Review main.go for bugs." {
		t.Errorf("template = %q", got)
	}
	set, _ := r.m.Commands(ctx, r.sid)
	if cmds := set.Commands(); len(cmds) != 2 || cmds[0].Name != "review" || cmds[1].Name != "skill:pdf" || cmds[1].Description != "Fill PDF forms" {
		t.Errorf("commands = %+v", cmds)
	}
	list, _ := r.h.Projects.List(ctx, true)
	r.h.Projects.SetTrusted(ctx, list[0].ID, false)
	if got, _ := r.m.Expand(ctx, r.sid, "/review main.go"); got != "/review main.go" {
		t.Errorf("an untrusted project's template expanded: %q", got)
	}
}
