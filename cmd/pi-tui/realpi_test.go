package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// readThenAnswer calls read on the file a prompt names ("read FILE") and
// answers with a line that names the prompt, so each turn of a session can
// be told apart in what the model is later sent.
func readThenAnswer(n int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult == "" {
		if _, file, ok := strings.Cut(req.LastUser, "read "); ok {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: fmt.Sprintf("call%d", n), Name: "read", Args: map[string]string{"path": file}}}}
		}
	}
	return fakemodel.Reply{Text: fmt.Sprintf("reply %d done", n)}
}

// runPi runs the real pi in print mode in root, with the CLI's home (so the
// same agent folder, models.json and settings), and fails on a non-zero exit.
func runPi(t *testing.T, pi []string, c *cli, root string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, pi[0], append(append([]string(nil), pi[1:]...), args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HOME="+c.env["HOME"], "FAKE_API_KEY=test-key", "PI_OFFLINE=1", "PI_CODING_AGENT_DIR=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pi %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// sent reports whether the model's last request carried every text.
func sent(t *testing.T, fake *fakemodel.Server, who string, texts ...string) {
	t.Helper()
	reqs := fake.Requests()
	last := reqs[len(reqs)-1].Raw
	for _, x := range texts {
		if !strings.Contains(last, x) {
			t.Errorf("%s did not send the model %q; it sent %s", who, x, last)
		}
	}
}

// One session, turns taken by the real pi and pi-tui in both orders, against
// one model server: each program's request carries the other's messages,
// tool calls and tool results, and they share one file. pi finds a session
// pi-tui began both with --continue and by id in the list its --resume
// picker shows (--session takes a prefix of an id from that list).
func TestRealPiAndPiTuiShareOneSession(t *testing.T) {
	t.Parallel()
	pi, skip := realpi.Command()
	if pi == nil {
		t.Skip(skip)
	}
	for _, piFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("begun in pi=%v", piFirst), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			fake, root := modelRig(t, c, readThenAnswer)
			writeFile(t, filepath.Join(root, "one.txt"), "first file body")
			writeFile(t, filepath.Join(root, "two.txt"), "second file body")
			writeFile(t, filepath.Join(root, "three.txt"), "third file body")
			piTurn := func(prompt string, cont bool) {
				args := []string{"-p", "--no-context-files"}
				switch {
				case cont && piFirst:
					args = append(args, "--continue")
				case cont:
					// pi finds the session by a prefix of its id in the
					// list its --resume picker shows.
					var list []struct{ ID string }
					json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &list)
					if len(list) != 1 {
						t.Fatalf("sessions = %v", list)
					}
					args = append(args, "--session", list[0].ID[:8])
				}
				runPi(t, pi, c, root, append(args, prompt)...)
			}
			tuiTurn := func(prompt string, cont bool) {
				args := []string{"prompt", "--project", "mono"}
				if cont {
					args = append(args, "--continue")
				}
				c.ok(append(args, prompt)...)
			}
			first, second := tuiTurn, piTurn
			firstName, secondName := "pi-tui", "pi"
			if piFirst {
				first, second = piTurn, tuiTurn
				firstName, secondName = "pi", "pi-tui"
			}
			first("please read one.txt", false)
			second("please read two.txt", true)
			sent(t, fake, secondName, "please read one.txt", "first file body", "please read two.txt")
			first("please read three.txt", true)
			sent(t, fake, firstName, "please read one.txt", "first file body", "second file body", "please read three.txt")

			files, _ := filepath.Glob(filepath.Join(c.env["HOME"], ".pi", "agent", "sessions", "*", "*.jsonl"))
			if len(files) != 1 {
				t.Fatalf("session files = %v, want one shared file", files)
			}
			out := c.ok("sessions", "list", "mono")
			if !strings.Contains(out, "please read one.txt") {
				t.Errorf("pi-tui's list does not show the session:\n%s", out)
			}
		})
	}
}
