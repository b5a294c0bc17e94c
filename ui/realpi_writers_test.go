package ui

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// Another writer of a session pi-tui has open on pi (ADR 0068): the real
// pi 1.6, run in the project as a user runs it in another terminal,
// appends a turn (`pi -c -p`). The open view shows it, the next prompt's
// model request carries it, and the file stays one branch, so `pi -c`
// afterwards sees both programs' turns.

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
