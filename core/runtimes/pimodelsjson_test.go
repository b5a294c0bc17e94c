package runtimes

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
)

// On the pi engine a models.json that does not parse is said with its
// line and column, and the model only that file declares (settings.json's
// default, fake/m1) is named nowhere as the one that runs: pi ignores the
// file too, so nothing is launched to say "Unknown provider". A model of
// one of pi's own providers still runs on pi, with the file's error said
// at the launch.
func TestPiEngineSaysABrokenModelsJSON(t *testing.T) {
	r, log := logRig(t)
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(r.h.Places.AgentDir, "models.json"), []byte("{\"providers\":{\"fake\":\n  {\"baseUrl\": 1,}}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := r.m.Model(ctx, "")
	if err == nil || !strings.Contains(err.Error(), "models.json is not valid JSON at line 2, column 17") || !strings.Contains(err.Error(), "pi cannot run fake/m1") {
		t.Fatalf("Model = %+v, %v; want the file's error with its position", c, err)
	}
	_, err = r.m.Prompt(ctx, r.sid, "", "hello")
	if err == nil || !strings.Contains(err.Error(), "line 2, column 17") {
		t.Fatalf("prompt: %v", err)
	}
	if b, _ := os.ReadFile(log); strings.Contains(string(b), "start") {
		t.Errorf("pi was launched: %s", b)
	}

	c, err = r.m.Model(ctx, "anthropic/claude-sonnet-4-5")
	if err != nil || !c.ByPi || c.Model.String() != "anthropic/claude-sonnet-4-5" {
		t.Fatalf("a model of pi's own provider: %+v, %v", c, err)
	}
	r.take()
	if _, err := r.m.Prompt(ctx, r.sid, "anthropic/claude-sonnet-4-5", "hello"); err != nil {
		t.Fatal(err)
	}
	var said bool
	for _, n := range find[events.Notice](r.take()) {
		said = said || strings.Contains(n.Text, "line 2, column 17") && strings.Contains(n.Text, "pi runs without it")
	}
	if !said {
		t.Error("the launch on pi's own provider did not say the file's error")
	}
}
