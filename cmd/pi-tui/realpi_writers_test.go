package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// Over one `pi-tui rpc --engine pi`: a prompt, then the real pi in another
// terminal continues the session (`pi -c -p`), then a prompt again. The
// idle pi, which never read that turn, is retired and a new one launched
// (reason other-writer); the model gets the other turn, pi-tui's message
// continues the file's one branch, and `pi -c` afterwards sees both turns.
func TestRealPiPromptAfterAnotherWritersTurn(t *testing.T) {
	c := realPiCLI(t)
	fake, root := realPiProject(t, c, true, func(_ int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "answer to " + req.LastUser}
	})
	r := startRPC(t, c, "--project", "mono", "--engine", "pi")
	launchedPi(t, r.prompt("first question"))
	other := func(text string) {
		t.Helper()
		cmd := exec.Command(foundPi16.path, "-c", "-p", text)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "PI_OFFLINE=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pi -c -p %q: %v\n%s", text, err, out)
		}
	}
	other("second from pi")

	evs := r.prompt("third question")
	if !hasReason(evs, "runtime_retired", "other-writer") || !hasReason(evs, "runtime_launched", "other-writer") {
		t.Errorf("no retirement and launch with reason other-writer: %v %v", typed(evs, "runtime_retired"), typed(evs, "runtime_launched"))
	}
	reqs := fake.Requests()
	if last := reqs[len(reqs)-1].Raw; !strings.Contains(last, "second from pi") || !strings.Contains(last, "answer to second from pi") {
		t.Errorf("the prompt after pi's turn did not send that turn to the model:\n%s", last)
	}

	var list []struct{ Path string }
	if err := json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions list: %v %+v", err, list)
	}
	b, err := os.ReadFile(list[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	children := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct {
			Type     string `json:"type"`
			ParentID string `json:"parentId"`
		}
		json.Unmarshal([]byte(line), &e)
		if e.Type == "session" {
			continue
		}
		if children[e.ParentID]++; children[e.ParentID] == 2 {
			t.Errorf("the session file forked at %q:\n%s", e.ParentID, b)
		}
	}

	other("fourth from pi")
	reqs = fake.Requests()
	if last := reqs[len(reqs)-1].Raw; !strings.Contains(last, "second from pi") || !strings.Contains(last, "answer to third question") {
		t.Errorf("pi -c afterwards does not see both programs' turns:\n%s", last)
	}
}
