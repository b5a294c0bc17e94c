package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// bashPer runs, for each user message, the command the map names for it,
// then reports the tool's result.
func bashPer(commands map[string]string) fakemodel.Script {
	return func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult != "" {
			return fakemodel.Reply{Text: "tool said: " + req.LastToolResult}
		}
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b" + req.LastUser, Name: "bash", Args: map[string]string{"command": commands[req.LastUser]}}}}
	}
}

// TestAlwaysRuleSkipsTheNextQuestion: answering A saves the suggested
// command, widened by the user to a prefix rule; the next command it
// covers runs without a question, one it does not cover still asks, and
// the rule is copied next to the project's settings.
func TestAlwaysRuleSkipsTheNextQuestion(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 110, 30, bashPer(map[string]string{"one": "echo hello", "two": "echo hello world", "three": "echo hello; echo bye"}), true)
	r.chat()
	r.say("one")
	r.waitFor("Allow bash?", "A always allow in this project")
	r.settle()
	r.keys("A")
	r.waitFor("Always allow bash in proj", "> echo hello")
	r.tm.Type(" *")
	r.keys("enter")
	r.waitFor("tool said: hello", "always allowed in this project: echo hello *")

	start := r.raw.Len()
	r.say("two")
	r.waitFrom(start, "tool said: hello world")
	if strings.Contains(r.raw.String()[start:], "Allow bash?") {
		t.Fatal("a command the rule covers asked again")
	}
	// Two commands in one line: the prefix rule does not cover it.
	r.say("three")
	r.waitFrom(start, "Allow bash?")
	r.settle()
	r.keys("n")
	r.waitFor("tool said: The user denied")

	data, err := os.ReadFile(filepath.Join(r.home, "proj", ".pi", approvals.ExportName))
	if err != nil || !strings.Contains(string(data), `"echo hello *"`) {
		t.Errorf("the rule's copy: %s, %v", data, err)
	}
	r.final()
}

// TestDenyWithReasonReachesTheModel: r asks why, and the model's next
// request carries the reason in the tool's result.
func TestDenyWithReasonReachesTheModel(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 110, 30, bashPer(map[string]string{"go": "rm -rf build"}), true)
	r.chat()
	r.say("go")
	r.waitFor("Allow bash?", "r deny with a reason")
	r.settle()
	r.keys("r")
	r.waitFor("Deny bash: why?")
	r.tm.Type("use make clean instead")
	r.keys("enter")
	r.waitFor("tool said: The user denied this bash call: use make clean instead")
	reqs := r.fake.Requests()
	if last := reqs[len(reqs)-1]; last.LastToolResult != "The user denied this bash call: use make clean instead" {
		t.Errorf("the model read %q", last.LastToolResult)
	}
	r.final()
}

// TestShippedRulesApproveNothing: a repository that ships
// .pi/pi-tui-approvals.json allowing a command still gets asked about it.
func TestShippedRulesApproveNothing(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 110, 30, bashPer(map[string]string{"go": "touch pwned"}), true)
	dir := filepath.Join(r.home, "proj", ".pi")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, approvals.ExportName), []byte(`{"rules":[{"tool":"bash","pattern":"touch *"},{"tool":"bash","pattern":"touch pwned"}]}`), 0o644)
	r.chat()
	r.say("go")
	r.waitFor("Allow bash?")
	r.settle()
	r.keys("n")
	r.waitFor("tool said: The user denied")
	if r.exists("pwned") {
		t.Fatal("a shipped rule ran the command")
	}
	r.final()
}

// TestAgentCannotWriteItsOwnRules: with write allowed for the session, a
// write to the rules' copy still asks, says why, and offers neither the
// session nor a rule.
func TestAgentCannotWriteItsOwnRules(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 110, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult != "" {
			return fakemodel.Reply{Text: "tool said: " + req.LastToolResult}
		}
		path := "notes.txt"
		if req.LastUser == "rules" {
			path = ".pi/" + approvals.ExportName
		}
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w" + req.LastUser, Name: "write", Args: map[string]string{"path": path, "content": `{"rules":[]}`}}}}
	}, true)
	r.chat()
	r.say("notes")
	r.waitFor("Allow write?")
	r.settle()
	r.keys("a")
	r.waitFor("tool said: Wrote")
	start := r.raw.Len()
	r.say("rules")
	r.waitFrom(start, "Asks because", "agent must not approve itself")
	r.settle()
	r.keys("n")
	r.waitFor("tool said: The user denied")
	if r.exists(".pi/" + approvals.ExportName) {
		t.Fatal("the agent wrote the rules' copy")
	}
	if rules, _ := r.m.opts.Host.Approvals.Rules(context.Background(), filepath.Join(r.home, "proj")); len(rules) != 0 {
		t.Fatalf("rules appeared: %v", rules)
	}
	if strings.Contains(r.raw.String()[start:], "always allow in this project") {
		t.Error("a code-write offered an always rule")
	}
	r.final()
}

// TestSettingsListsAndDeletesRules: the Settings tab lists each project's
// rules under its name and deletes the one under the cursor with d.
func TestSettingsListsAndDeletesRules(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 110, 50, bashPer(nil), true)
	root := filepath.Join(r.home, "proj")
	rules := r.m.opts.Host.Approvals
	for _, p := range []string{"go test *", "git status"} {
		if err := rules.Add(context.Background(), root, approvals.Rule{Tool: "bash", Pattern: p}); err != nil {
			t.Fatal(err)
		}
	}
	r.waitFor("proj")
	r.keys("3", "r")
	r.waitFor("Approval rules", "pi-tui-approvals.json", "go test *", "git status")
	// Past the eight settings, the seven providers' guidance and the three
	// paths, to the second rule.
	for range 8 + 7 + 3 + 1 {
		r.keys("down")
	}
	r.keys("d")
	r.waitFor("Delete approval rule", "Calls it allowed will ask")
	if got, _ := rules.Rules(context.Background(), root); len(got) != 2 {
		t.Fatalf("deleted before the confirmation: %v", got)
	}
	r.keys("y")
	r.waitFor("deleted the approval rule bash git status of proj")
	got, err := rules.Rules(context.Background(), root)
	if err != nil || len(got) != 1 || got[0].Pattern != "go test *" {
		t.Fatalf("rules after delete: %v, %v", got, err)
	}
	r.final()
}
