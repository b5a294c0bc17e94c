package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

func echoScript(n int, req fakemodel.Request) fakemodel.Reply {
	return fakemodel.Reply{Text: fmt.Sprintf("reply %d", n)}
}

// Typing @hand offers the project's files, best match first; a file a
// .gitignore names never shows; tab inserts the path; on send the file's
// content goes before the message as pi attaches @file arguments, and the
// transcript shows what was typed and what was attached.
func TestAtCompletesAFileAndSendsItAttached(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 110, 32, echoScript, true)
	root := filepath.Join(r.home, "proj")
	writeAt(t, filepath.Join(root, ".gitignore"), "pkg/\n*.secret\n")
	writeAt(t, filepath.Join(root, "packages", "api", "handler.go"), "package api\n\nfunc Handle() {}\n")
	writeAt(t, filepath.Join(root, "docs", "shipping-and-handling.md"), "# Shipping\n")
	writeAt(t, filepath.Join(root, "hand.secret"), "token\n")
	r.chat()

	start := r.raw.Len()
	r.tm.Type("explain @hand")
	r.waitFor("packages/api/handler.go", "docs/shipping-and-handling.md", "files match", "from the folder, minus .gitignore")
	if seen := r.raw.String()[start:]; strings.Contains(seen, "hand.secret") || strings.Contains(seen, "pkg/api/handler.go") {
		t.Fatalf("an ignored file was offered:\n%s", seen)
	}
	r.keys("tab")
	r.waitFor("› explain @packages/api/handler.go")
	r.keys("enter")
	r.waitFor("reply 0", "attached packages/api/handler.go (3 lines)")
	reqs := r.fake.Requests()
	want := "<file name=\"" + filepath.Join(root, "packages", "api", "handler.go") + "\">\npackage api\n\nfunc Handle() {}\n\n</file>\nexplain @packages/api/handler.go"
	if got := reqs[len(reqs)-1].LastUser; got != want {
		t.Fatalf("the model got %q\nwant %q", got, want)
	}

	// ↓ moves to the next match; esc closes the menu and keeps the text.
	// The menu's lines are those drawn before, so the terminal gets no
	// new bytes for them: the input line says the keys arrived.
	r.tm.Type("and @hand")
	r.waitFor("› and @hand")
	r.keys("down", "tab")
	r.waitFor("› and @docs/shipping-and-handling.md")
	r.tm.Type("@zzzz")
	r.waitFor(`no file matches "zzzz"`)
	r.keys("esc")
	r.tm.Type(" ok")
	r.waitFor("› and @docs/shipping-and-handling.md @zzzz ok")
}

// In a git checkout the tracked files come from the git index at once;
// then the files git does not track are added, except what git ignores
// (here through .git/info/exclude). The core tests check the first step
// alone against `git ls-files`.
func TestAtCompletesFromTheGitIndex(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: no checkout to read an index from")
	}
	r := newKitRig(t, 110, 32, echoScript, true)
	root := filepath.Join(r.home, "proj")
	cmd := exec.Command("sh", "-c", "git init -q && git add notes.txt && echo pkg/ >> .git/info/exclude")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git: %v\n%s", err, out)
	}
	r.chat()
	start := r.raw.Len()
	r.tm.Type("@no")
	r.waitFor("notes.txt", " · from ") // "1 of 1 file matches" or "1 of 2 files match"
	r.tm.Type(" @AGE")
	r.waitFor("AGENTS.md") // not tracked: added by the second step
	r.tm.Type(" @handler")
	r.waitFor(`no file matches "handler" among 2 from git`)
	if seen := r.raw.String()[start:]; strings.Contains(seen, "pkg/api") {
		t.Fatalf("an excluded file was offered:\n%s", seen)
	}
}

// Typing / opens a menu of every command with its argument hint and
// description; letters narrow it (fuzzy: "cmpt" finds /compact); tab
// completes the highlighted one; a command typed in full runs on enter.
func TestSlashMenuListsFiltersAndCompletes(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 110, 32, echoScript, true)
	writeAt(t, filepath.Join(r.home, "proj", ".pi", "prompts", "review.md"), "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1.")
	r.chat()
	r.tm.Type("/")
	r.waitFor("/compact [instructions]", "summarise the session so far", "/thinking [level]", "set this session's thinking level",
		"/name NAME", "/model", "more: ↑/↓, or type to narrow")
	r.tm.Type("rev")
	r.waitFor("/review <file>", "Review a file")
	for range len("rev") {
		r.keys("backspace")
	}
	r.tm.Type("cmpt")
	r.keys("tab")
	r.waitFor("› /compact")
	r.keys("esc") // closes nothing: the menu closed when the name was complete
	r.tm.Type("x")
	for range len("/compact x") {
		r.keys("backspace")
	}
	r.tm.Type("/nothing-like-it")
	r.waitFor(`no command matches "/nothing-like-it"`)
	for range len("/nothing-like-it") {
		r.keys("backspace")
	}
	r.tm.Type("/context")
	r.keys("enter")
	r.waitFor("System prompt")
}

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
