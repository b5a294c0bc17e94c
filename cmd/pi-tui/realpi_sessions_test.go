package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/bridge"
)

// The session file the real pi wrote is pi-tui's: `sessions list` lists
// it once, at pi's file, with every entry counted, and the delivery is
// recorded in it as the custom entry the built-in engine also writes.
func TestRealPiSessionListedWithTheDeliveryRecorded(t *testing.T) {
	c := realPiCLI(t)
	_, _ = realPiProject(t, c, true, callsThenAnswer)
	code, evs, errs := promptPi(t, c, "read packages/api/handler.go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	launchedPi(t, evs)

	var list []struct {
		ID      string `json:"id"`
		Entries int    `json:"entries"`
		Path    string `json:"path"`
		Problem string `json:"problem"`
	}
	if err := json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Problem != "" {
		t.Fatalf("sessions list = %+v, want one session without a problem", list)
	}
	b, err := os.ReadFile(list[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	var entries, messages, records int
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct {
			Type       string `json:"type"`
			ID         string `json:"id"`
			CustomType string `json:"customType"`
			Message    struct {
				Role string `json:"role"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %d of pi's file is not JSON: %q", i+1, line)
		}
		if e.Type == "session" {
			if e.ID != list[0].ID {
				t.Errorf("pi's file is session %s, listed as %s", e.ID, list[0].ID)
			}
			continue
		}
		entries++
		switch {
		case e.Type == "message" && e.Message.Role != "system":
			messages++
		case e.Type == "custom" && e.CustomType == bridge.RecordType:
			records++
			if !strings.Contains(line, "packages/api/AGENTS.md") {
				t.Errorf("the delivery record does not name packages/api/AGENTS.md: %s", line)
			}
		}
	}
	// user, assistant with the call, the tool result, the answer (pi 1.6
	// also records its system prompt as a system-role message).
	if messages != 4 {
		t.Errorf("pi's file has %d messages, want 4:\n%s", messages, b)
	}
	if records != 1 {
		t.Errorf("pi's file has %d delivery records, want 1:\n%s", records, b)
	}
	if list[0].Entries != entries {
		t.Errorf("sessions list counts %d entries, pi's file has %d", list[0].Entries, entries)
	}
}
