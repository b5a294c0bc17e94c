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
	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/ui/common"
)

// bashOnce is a model that runs one bash command, after release is closed
// (nil: at once), then reports the tool's result.
func bashOnce(command string, release <-chan struct{}) fakemodel.Script {
	return func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult != "" {
			return fakemodel.Reply{Text: "tool said: " + req.LastToolResult}
		}
		if release != nil {
			<-release
		}
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b1", Name: "bash", Args: map[string]string{"command": command}}}}
	}
}

func (r *kitRig) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(r.home, "proj", rel))
	return err == nil
}

// TestTypingNeverAnswersAnApproval types into the chat while an approval
// arrives, then presses each key that answers (or might answer) a dialog:
// none of them may answer it. The agent's approver must still be waiting
// (no tool result went to the model, the file was not touched) and the
// dialog must still be open, until the keyboard rests and the user
// answers deliberately.
func TestTypingNeverAnswersAnApproval(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, key string
		// proof that the key was handled: typed text reaches the chat
		// input beneath; other keys are counted by the dialog.
		proof string
	}{
		{"y", "y", "and also y"},
		{"a", "a", "and also a"},
		{"n", "n", "and also n"},
		{"esc", "esc", "1 key ignored"},
		{"enter", "enter", "1 key ignored"},
		{"letter", "x", "and also x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			r := newKitRig(t, 100, 30, bashOnce("touch X", release), true)
			r.chat()
			r.say("run it")
			r.tm.Type("and also ") // mid-sentence as the approval arrives
			close(release)
			r.waitFor("Allow bash?", "keys ignored until you stop typing")
			r.keys(c.key)
			r.waitFor(c.proof)
			if n := len(r.fake.Requests()); n != 1 || r.exists("X") {
				t.Fatalf("%q answered the approval: %d model requests, X exists: %v", c.key, n, r.exists("X"))
			}
			// The dialog is still open: it becomes ready once the keyboard
			// rests, and a deliberate n denies.
			r.settle()
			r.keys("n")
			r.waitFor("denied", "tool said: The user denied")
			if r.exists("X") {
				t.Error("a denied command ran")
			}
			final := r.final()
			if !strings.Contains(final, "and also") {
				t.Errorf("the text typed during the quiet period was lost:\n%s", final)
			}
		})
	}
}

// TestApprovalOverAnotherTabIgnoresKeys: the user is in Settings (keys
// there are commands, not text) when the approval arrives; a key typed
// then is ignored and counted, not sent to Settings or the dialog.
func TestApprovalOverAnotherTabIgnoresKeys(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	r := newKitRig(t, 100, 30, bashOnce("touch X", release), true)
	r.chat()
	r.say("run it")
	r.keys("tab") // to Settings
	r.waitFor("Global instructions")
	close(release)
	r.waitFor("Allow bash?", "keys ignored until you stop typing")
	r.keys("y", "a")
	r.waitFor("2 keys ignored")
	if n := len(r.fake.Requests()); n != 1 || r.exists("X") {
		t.Fatalf("a key answered the approval: %d model requests, X exists: %v", n, r.exists("X"))
	}
	r.settle()
	r.keys("y", "2") // allow, then back to the Session tab
	r.waitFor("tool said:")
	if !r.exists("X") {
		t.Error("the allowed command did not run")
	}
	r.final()
}

// TestQuietPeriodCountsFromTheLastKey: the dialog waits for 400 ms after
// the last key, not after it opened, so a user who keeps typing is never
// answering it.
func TestQuietPeriodCountsFromTheLastKey(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 100, 30, bashOnce("touch X", nil), true)
	r.chat()
	r.say("run it")
	r.waitFor("Allow bash?", "keys ignored until you stop typing")
	r.wait(300 * time.Millisecond)
	r.keys("k") // still typing, into the chat input
	r.waitFor("› k")
	// 600 ms after opening but 300 after the key: esc is ignored, where
	// a dialog timed from its opening would take it as "deny".
	r.wait(300 * time.Millisecond)
	r.keys("esc")
	r.waitFor("1 key ignored")
	r.wait(common.QuietPeriod) // the rest after that esc
	r.waitFor("▶ ready")
	r.keys("y")
	r.waitFor("tool said:")
	if !r.exists("X") {
		t.Error("the allowed command did not run")
	}
	r.final()
}

// TestApprovalClosesWhenItsTurnIsAborted: an approval whose turn is
// aborted elsewhere (another program, a closed connection) closes itself;
// a key typed afterwards goes to the chat, not to a stale question.
func TestApprovalClosesWhenItsTurnIsAborted(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 100, 30, bashOnce("touch X", nil), true)
	r.chat()
	r.say("run it")
	r.waitFor("Allow bash?")
	r.settle()
	r.abortAll()
	r.waitFor("the approval question was withdrawn")
	r.keys("y")
	r.waitFor("› y")
	final := r.final()
	if strings.Contains(final, "Allow bash?") || r.exists("X") {
		t.Errorf("the aborted turn's approval stayed open or ran:\n%s", final)
	}
}

// hostileCommand hides a second command 80 lines below the first and
// carries escape sequences: SGR 8 (invisible), OSC 52 (clipboard), OSC 0
// (window title).
const hostileCommand = "ls -la" + "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n" +
	"\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n" +
	"touch X\necho \x1b[8mhidden\x1b[0m \x1b]52;c;cm0gLXJm\x07 \x1b]0;title\x07"

// TestApprovalShowsTheWholeCommand: a command of 82 lines says so, can be
// scrolled to its end, shows its escape sequences as text, and keeps the
// answer keys on screen at every size.
func TestApprovalShowsTheWholeCommand(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {60, 16}, {120, 40}} {
		t.Run(itoa(size.w)+"x"+itoa(size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, bashOnce(hostileCommand, nil), true)
			r.chat()
			r.say("list")
			r.waitFor("Allow bash?", "command: 82 lines", "y allow once", "n/esc deny")
			r.keys("end")
			r.waitFor("touch X")
			// A resize repaints every line, so the frame after scrolling
			// is seen whole: the end of the command and the answer keys.
			r.tm.Send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			r.waitFor("command: 82 lines", "touch X", `\x1b[8mhidden\x1b[0m`, `\x1b]52;c;cm0gLXJm`, `\x1b]0;title\x07`, "y allow once", "n/esc deny")
			r.settle()
			r.keys("n")
			r.waitFor("denied")
			final := r.final()
			if r.exists("X") {
				t.Error("a denied command ran")
			}
			if found := rawEscapes(r.raw.Bytes()); len(found) > 0 {
				t.Errorf("escape sequences from the model reached the terminal: %q", found)
			}
			if !strings.Contains(final, "bash (82 lines) ls -la⏎…") {
				t.Errorf("the transcript's tool line does not say the command has 82 lines:\n%s", final)
			}
		})
	}
}

// TestTranscriptShowsEscapesAsText: a file read by a tool, the model's
// answer (rendered as markdown, where &#27; would decode to ESC) and the
// expanded tool output show escape sequences as text.
func TestTranscriptShowsEscapesAsText(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 120, 40, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult == "" {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "r1", Name: "read", Args: map[string]string{"path": "evil.txt"}}}}
		}
		return fakemodel.Reply{Text: "Read it. \x1b]0;title\x07 and &#27;[8mconcealed"}
	}, true)
	if err := os.WriteFile(filepath.Join(r.home, "proj", "evil.txt"), []byte("a \x1b[8mhidden\x1b[0m b \x1b]52;c;cm0gLXJm\x07\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.chat()
	r.say("read evil.txt")
	r.waitFor("Read it.", `\x1b]0;title\x07`, "&#27;[8mconcealed")
	r.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlO}) // expand tool output
	r.waitFor(`a \x1b[8mhidden\x1b[0m b \x1b]52;c;cm0gLXJm\x07`)
	r.final()
	if found := rawEscapes(r.raw.Bytes()); len(found) > 0 {
		t.Errorf("escape sequences from a file or the model reached the terminal: %q", found)
	}
}

// TestWriteOverAFIFOAsksWithoutHanging: the diff of a write whose target
// is a FIFO says so instead of blocking on reading it.
func TestWriteOverAFIFOAsksWithoutHanging(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 100, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult != "" {
			return fakemodel.Reply{Text: "tool said: " + req.LastToolResult}
		}
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w", Name: "write", Args: map[string]string{"path": "pipe", "content": "x\n"}}}}
	}, true)
	fifo := filepath.Join(r.home, "proj", "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// Should a reader block on the FIFO, a writer opened at the end
	// releases it so the test fails instead of hanging.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	r.chat()
	r.say("write it")
	r.waitFor("Allow write?", "(not a regular file)", "+ x")
	r.settle()
	r.keys("n")
	r.waitFor("denied")
	r.final()
}

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
