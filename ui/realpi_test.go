package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// The UI on the real pi 1.6 (PI_TUI_PI; each test skips, saying so,
// without it): another program writing the open session, pi's token line
// and /context, an extension's dialog, pi's own tools.

// answerEcho answers every prompt with "answer to <prompt>".
func answerEcho(_ int, req fakemodel.Request) fakemodel.Reply {
	return fakemodel.Reply{Text: "answer to " + req.LastUser}
}

// runPi runs the real pi in the project under home with args, as another
// program writing the same sessions, and waits for it to end.
func runPi(t *testing.T, pi, home string, args ...string) {
	t.Helper()
	cmd := exec.Command(pi, args...)
	cmd.Dir = filepath.Join(home, "proj")
	cmd.Env = append(os.Environ(), "HOME="+home, "PI_CODING_AGENT_DIR="+filepath.Join(home, ".pi", "agent"),
		"FAKE_API_KEY=test-key", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "PI_OFFLINE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pi %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (r *kitRig) otherPi(pi string, args ...string) {
	r.t.Helper()
	runPi(r.t, pi, r.home, args...)
}

// sessionFile returns the project's only session file.
func (r *kitRig) sessionFile() string {
	r.t.Helper()
	ids := r.sessionIDs()
	if len(ids) != 1 {
		r.t.Fatalf("sessions %v, want one", ids)
	}
	s, err := r.m.opts.Host.Runtimes.Sessions().Open(context.Background(), ids[0])
	if err != nil {
		r.t.Fatal(err)
	}
	return s.File()
}

// piEntry is one line of a session file, as far as these tests read it.
type piEntry struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	ParentID string `json:"parentId"`
	Message  struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func readEntries(t *testing.T, path string) []piEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []piEntry
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e piEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("a line of the session file is not JSON: %q", line)
		}
		if e.Type != "session" {
			out = append(out, e)
		}
	}
	return out
}

// messageID returns the id of the message of role saying text.
func messageID(t *testing.T, es []piEntry, role, text string) string {
	t.Helper()
	for _, e := range es {
		if e.Type == "message" && e.Message.Role == role && strings.Contains(string(e.Message.Content), text) {
			return e.ID
		}
	}
	t.Fatalf("the session file has no %s message %q", role, text)
	return ""
}

// branchOf returns the ids from the root to id.
func branchOf(es []piEntry, id string) map[string]bool {
	parent := map[string]string{}
	for _, e := range es {
		parent[e.ID] = e.ParentID
	}
	out := map[string]bool{}
	for i := id; i != "" && !out[i]; i = parent[i] {
		out[i] = true
	}
	return out
}

// forks returns the entries that have more than one child.
func forks(es []piEntry) []string {
	n := map[string]int{}
	var out []string
	for _, e := range es {
		if n[e.ParentID]++; n[e.ParentID] == 2 {
			out = append(out, e.ParentID)
		}
	}
	return out
}

// lastRequest returns the raw body of the fake model's latest request.
func (r *kitRig) lastRequest() string {
	reqs := r.fake.Requests()
	if len(reqs) == 0 {
		r.t.Fatal("the model got no request")
	}
	return reqs[len(reqs)-1].Raw
}

// Another writer of a session pi-tui has open on pi (ADR 0068): the real
// pi 1.6, run in the project as a user runs it in another terminal,
// appends a turn (`pi -c -p`). The open view shows it, the next prompt's
// model request carries it, and the file stays one branch, so `pi -c`
// afterwards sees both programs' turns.
//
// An idle session on pi, new in pi-tui or opened from pi's own sessions:
// another program's turn shows in the view as it lands and pi is
// relaunched on the file (the status says why); the next prompt's request
// carries that turn, and its message continues the file's one branch, so
// `pi -c` sees both.
func TestRealPiOtherWritersTurn(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	pi := argv[0]
	for _, c := range []string{"new", "reopened"} {
		t.Run(c, func(t *testing.T) {
			var before []func(string)
			if c == "reopened" {
				// pi's own session, opened in pi-tui.
				before = append(before, func(home string) { runPi(t, pi, home, "-p", "first question") })
			}
			r := newRealPiKitRig(t, 160, 40, pi, answerEcho, before...)
			if c == "new" {
				r.chat()
				r.say("first question")
				r.waitFor("answer to first question")
			} else {
				r.waitFor("proj")
				r.keys("enter", "o")
				r.waitFor("first question")
				r.keys("enter")
				// Open, its pi launched in the background and idle.
				r.waitFor("answer to first question", "runtime launched: new")
			}
			file := r.sessionFile()

			r.otherPi(pi, "-c", "-p", "second from pi")
			// Shown as it lands, and the idle pi, which never read it, is
			// relaunched on the file in the background.
			r.waitFor("second from pi", "answer to second from pi", "runtime launched: another program wrote to the session")
			es := readEntries(t, file)
			otherLast := es[len(es)-1].ID

			r.say("third question")
			r.waitFor("answer to third question")
			if req := r.lastRequest(); !strings.Contains(req, "second from pi") || !strings.Contains(req, "answer to second from pi") {
				t.Errorf("the prompt after another writer's turn did not send it to the model:\n%s", req)
			}
			es = readEntries(t, file)
			if f := forks(es); len(f) > 0 {
				t.Errorf("the session file forked at %v", f)
			}
			if !branchOf(es, messageID(t, es, "user", "third question"))[otherLast] {
				t.Errorf("pi-tui's message does not continue from the other writer's last entry %s", otherLast)
			}

			// pi continues the same branch: both programs' turns.
			r.otherPi(pi, "-c", "-p", "fourth from pi")
			if req := r.lastRequest(); !strings.Contains(req, "second from pi") || !strings.Contains(req, "answer to third question") {
				t.Errorf("pi -c afterwards does not see both turns:\n%s", req)
			}
		})
	}
}

// Another program appends while pi-tui's turn on pi runs (`pi -c` reads
// the file mid-turn): pi's turn keeps the session's branch, the other
// turn goes on a side branch and a notice says so; the view, the next
// prompt and `pi -c` afterwards continue from pi-tui's turn.
func TestRealPiOtherWriterMidTurn(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	pi := argv[0]
	hold := make(chan struct{})
	r := newRealPiKitRig(t, 160, 40, pi, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastUser == "hold on" {
			return fakemodel.Reply{Text: "partial words then the rest", Hold: hold}
		}
		return answerEcho(n, req)
	})
	r.chat()
	r.say("hold on")
	r.waitFor("partial")
	r.otherPi(pi, "-c", "-p", "second from pi")
	close(hold)
	r.waitFor("the rest", "went on a side branch")

	r.say("third question")
	r.waitFor("answer to third question")
	req := r.lastRequest()
	if !strings.Contains(req, "partial words then the rest") || strings.Contains(req, "second from pi") {
		t.Errorf("the next prompt does not continue from pi-tui's turn alone:\n%s", req)
	}
	es := readEntries(t, r.sessionFile())
	third := branchOf(es, messageID(t, es, "user", "third question"))
	if !third[messageID(t, es, "assistant", "partial words then the rest")] || third[messageID(t, es, "user", "second from pi")] {
		t.Error("pi-tui's next message is not on its own turn's branch, apart from the other writer's")
	}
	r.otherPi(pi, "-c", "-p", "fourth from pi")
	if req := r.lastRequest(); !strings.Contains(req, "answer to third question") || strings.Contains(req, "second from pi") {
		t.Errorf("pi -c afterwards does not continue pi-tui's branch:\n%s", req)
	}
	final := r.final()
	if !strings.Contains(final, "third question") || strings.Contains(final, "answer to second from pi") {
		t.Errorf("the view does not show pi-tui's branch:\n%s", final)
	}
}

// On the real pi the line above the input counts the whole session, as
// pi's footer does: after two turns it shows both turns' tokens (it
// showed the last turn's alone), with the context window's use to one
// decimal. /context then shows the prompt pi sent, pi's part and
// pi-tui's, and the tools the request declared, not the built-in
// engine's prompt.
func TestRealPiTokenLineAndContextArePis(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	r := newRealPiKitRig(t, 140, 36, argv[0], func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: fmt.Sprintf("answer number %d", n+1)}
	})
	r.chat()
	r.say("first")
	r.waitFor("answer number 1", "tokens 100 in / 20 out")
	r.say("second")
	r.waitFor("answer number 2", "tokens 200 in / 40 out", "context 0.1% of 200k")
	r.command("/context", "as pi sent it at", "pi's own prompt", "pi-tui's sections", "Tools (", "read, bash, edit, write")
	r.keys("v")
	r.waitFor("You are a coding assistant running inside pi")
	r.final()
}

// pi's refusal of a prompt ("No API key found…", three paragraphs) is
// shown as its lines, never with \x0a in them.
func TestRealPiRefusalIsShownAsLines(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	t.Setenv("ANTHROPIC_API_KEY", "")
	r := newRealPiKitRig(t, 120, 36, argv[0], func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "unused"} })
	writeAt(t, filepath.Join(r.home, ".pi", "agent", "settings.json"), `{"defaultProvider":"anthropic","defaultModel":"claude-sonnet-4-5","defaultThinkingLevel":"off"}`)
	r.chat()
	r.say("hello")
	r.waitScreen("No API key found for anthropic.", "Use /login to log into a provider")
	if final := r.final(); strings.Contains(final, `\x0a`) || strings.Contains(final, "anthropic.Use") {
		t.Errorf("the refusal is not shown as its lines:\n%s", final)
	}
}

// /compact on a session pi finds too small says so once, plainly (it
// said "compaction failed: Compaction failed: Nothing to compact", and
// then pi's refusal of the command again).
func TestRealPiNothingToCompactIsSaidOnce(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	r := newRealPiKitRig(t, 120, 36, argv[0], func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "unused"} })
	r.chat()
	r.say("/compact")
	r.waitScreen("compaction failed: Nothing to compact (session too small)")
	final := r.final()
	if n := strings.Count(final, "Nothing to compact"); n != 1 || strings.Contains(final, "Compaction failed") || strings.Contains(final, "pi refused") {
		t.Errorf("said %d times:\n%s", n, final)
	}
}

// The real pi runs a user extension's tool that asks with ctx.ui.confirm:
// pi-tui's approval for the tool (an extension's, so gated) comes first;
// then the extension's question opens in the chat, its title's escape
// sequences shown, not sent; it takes no key until the keyboard has
// rested (a y typed as it appears goes to the chat input, an enter is
// ignored), and then y confirms (the tool says "deployed") and esc cancels
// (it says "cancelled"), which is what the model reads next.
func TestRealPiExtensionConfirmAnsweredInTheUI(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	for _, c := range []struct {
		name, key, want string
	}{
		{"yes", "y", "deployed"},
		{"esc", "esc", "cancelled"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRealPiKitRig(t, 120, 36, argv[0], func(n int, req fakemodel.Request) fakemodel.Reply {
				if req.LastToolResult == "" {
					return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "d1", Name: "deploy", Args: map[string]string{}}}}
				}
				return fakemodel.Reply{Text: "the tool said " + req.LastToolResult}
			})
			r.chat()
			r.say("deploy it")
			r.waitFor("Allow deploy?")
			r.settle()
			r.keys("y")
			r.waitFor(`Deploy?\x1b]0;pwned\x07`, `to staging\x1b[8m hidden`, "y yes", "esc cancel")
			// The approval's y came before the question, and a y typed
			// now goes on to the chat input: neither answers it.
			r.waitScreen("keys ignored until you stop typing")
			r.keys("y")
			r.waitScreen("› y", `Deploy?\x1b]0;pwned\x07`, "keys ignored until you stop typing")
			r.keys("enter")
			r.waitScreen("1 key ignored", `Deploy?\x1b]0;pwned\x07`)
			r.settle()
			r.keys(c.key)
			r.waitFor("the tool said " + c.want)
			reqs := r.fake.Requests()
			if got := reqs[len(reqs)-1].LastToolResult; !strings.Contains(got, c.want) {
				t.Errorf("the model read %q after %s, want %q", got, c.key, c.want)
			}
			final := r.final()
			if strings.Contains(final, "Deploy?") {
				t.Errorf("the answered question stayed open:\n%s", final)
			}
			if found := rawEscapes(r.raw.Bytes()); len(found) > 0 {
				t.Errorf("the extension's escape sequences reached the terminal: %q", found)
			}
		})
	}
}

// piToolsScript plays the model for TestRealPiToolsAsPiDefinesThem: each
// prompt names a call of pi 1.6's edit (path, edits[]) on code.go or of
// the project's stamp tool; after the result it answers "done with" the
// prompt.
func piToolsScript(n int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult != "" {
		return fakemodel.Reply{Text: "done with " + req.LastUser}
	}
	edit := func(pairs ...string) fakemodel.Reply {
		var edits []map[string]string
		for i := 0; i < len(pairs); i += 2 {
			edits = append(edits, map[string]string{"oldText": pairs[i], "newText": pairs[i+1]})
		}
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: fmt.Sprintf("e%d", n), Name: "edit", Args: map[string]any{"path": "code.go", "edits": edits}}}}
	}
	switch req.LastUser {
	case "several":
		return edit("c := 3", "c := 30", "a := 1", "a := 10")
	case "overlapping":
		return edit("a := 10\nb := 2", "A", "b := 2\nc := 30", "B")
	case "missing":
		return edit("zzz", "q", "b := 2", "B")
	case "duplicate":
		return edit("x()", "y()")
	case "stamp":
		// The model writes times first; the schema has label first.
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "s1", Name: "stamp", Args: map[string]any{"times": 2, "label": "v1"}}}}
	}
	return fakemodel.Reply{Text: "?"}
}

// On the real pi 1.6 (PI_TUI_PI), tools as pi defines them: an edit with
// several edits[] asks with the exact diff pi then applies; one pi will
// refuse (overlapping, not found, not unique) says so in pi's words before
// the user answers, and pi's own result says the same; the project's own
// extension loads (the project is trusted, and the session says so), and
// its tool's approval and line show its arguments in its schema's order.
func TestRealPiToolsAsPiDefinesThem(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	r := newRealPiKitRig(t, 120, 40, argv[0], piToolsScript)
	root := filepath.Join(r.home, "proj")
	writeAt(t, filepath.Join(root, "code.go"), "package code\n\nfunc f() {\na := 1\nb := 2\nc := 3\nx()\nx()\n}\n")
	writeAt(t, filepath.Join(root, ".pi", "extensions", "stamp.ts"), realpi.StampExtension)
	r.chat()
	r.waitScreen("pi loaded this project's own resources", ".pi/extensions/stamp.ts")

	r.say("several")
	r.waitFor("Allow edit?", "2 lines added, 2 removed", "(2 edits, each matched in the file as it is now)",
		"4   │ - a := 1", "  4 │ + a := 10", "6   │ - c := 3", "  6 │ + c := 30")
	r.settle()
	r.keys("y")
	r.waitFor("done with several")
	if b, _ := os.ReadFile(filepath.Join(root, "code.go")); string(b) != "package code\n\nfunc f() {\na := 10\nb := 2\nc := 30\nx()\nx()\n}\n" {
		t.Errorf("pi applied something else than the approval showed:\n%s", b)
	}

	for _, c := range []struct{ prompt, says string }{
		{"overlapping", "edits[0] and edits[1] overlap in code.go."},
		{"missing", "Could not find edits[0] in code.go."},
	} {
		r.say(c.prompt)
		r.waitFor("Allow edit?", "pi will refuse it as it stands", "pi will refuse this edit: "+c.says, "edits[1] as given:")
		r.settle()
		r.keys("n")
		r.waitFor("done with " + c.prompt)
	}
	r.say("duplicate")
	r.waitFor("Allow edit?", "pi will refuse this edit: Found 2 occurrences of the text in code.go.")
	r.settle()
	r.keys("y") // allowed anyway: pi refuses it with the same words
	r.waitFor("done with duplicate")
	reqs := r.fake.Requests()
	if got := reqs[len(reqs)-1].LastToolResult; !strings.Contains(got, "Found 2 occurrences of the text in code.go.") {
		t.Errorf("pi said %q", got)
	}

	r.say("stamp")
	r.waitFor("Allow stamp?", `stamp label="v1" times=2`, "label: v1", "times: 2")
	r.settle()
	r.keys("y")
	r.waitFor("done with stamp", `✓ stamp label="v1" times=2`)
	r.final()
}

// Untrusted, the project's own extension is not loaded into pi, and the
// session says which resources were declined, why and how to trust it.
func TestRealPiUntrustedResourcesSaidInTheSession(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	r := newRealPiKitRig(t, 120, 36, argv[0], piToolsScript)
	ps, err := r.m.opts.Host.Projects.List(t.Context(), true)
	if err != nil || len(ps) != 1 {
		t.Fatalf("projects: %v %v", ps, err)
	}
	if err := r.m.opts.Host.Projects.SetTrusted(t.Context(), ps[0].ID, false); err != nil {
		t.Fatal(err)
	}
	writeAt(t, filepath.Join(r.home, "proj", ".pi", "extensions", "stamp.ts"), realpi.StampExtension)
	r.chat()
	r.waitScreen("pi declined this project's own resources", "press t in Projects", "trust proj", "stamp.ts")
	r.say("stamp")
	r.waitFor("done with stamp")
	if got := r.fake.Requests()[0].Raw; strings.Contains(got, `"name":"stamp"`) {
		t.Error("the untrusted project's tool is offered to the model")
	}
	r.final()
}
