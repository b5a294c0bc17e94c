package runtimes

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// TestKeyChangeRestartsTheRuntime: a new key in auth.json reaches the
// next prompt: the idle runtime holding the old one is replaced
// (key-changed), and the key itself is in no event.
func TestKeyChangeRestartsTheRuntime(t *testing.T) {
	r := newRig(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} }, nil)
	r.prompt("one")
	r.take()
	auth := filepath.Join(r.h.Places.AgentDir, "auth.json")
	if err := os.WriteFile(auth, []byte(`{"fake":{"type":"api_key","key":"sk-rotated-key-0123456789"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r.prompt("two")
	var launched *events.RuntimeLaunched
	for _, e := range r.take() {
		if l, ok := e.(events.RuntimeLaunched); ok {
			launched = &l
		}
		if line, _ := events.Marshal(e); strings.Contains(string(line), "sk-rotated-key-0123456789") {
			t.Errorf("the key is in an event: %s", line)
		}
	}
	if launched == nil || launched.Reason != ReasonKeyChanged {
		t.Errorf("launch after the key changed = %+v", launched)
	}
}

// TestModelsFileChangeIsSeenAtTheNextPrompt: the model a prompt runs is
// resolved again once models.json changed (it is remembered only while the
// file is as it was): a model the file no longer has fails the prompt,
// one it names again runs.
func TestModelsFileChangeIsSeenAtTheNextPrompt(t *testing.T) {
	r := newRig(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} }, nil)
	if _, err := r.m.Prompt(context.Background(), r.sid, "fake/m1", "one"); err != nil {
		t.Fatal(err)
	}
	models := filepath.Join(r.h.Places.AgentDir, "models.json")
	renamed := strings.Replace(r.fake.ModelsJSON("openai-completions"), `"id":"m1"`, `"id":"m2"`, 1)
	if err := os.WriteFile(models, []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.m.Prompt(context.Background(), r.sid, "fake/m1", "two"); err == nil {
		t.Fatal("a model models.json no longer lists still ran")
	}
	if _, err := r.m.Prompt(context.Background(), r.sid, "fake/m2", "three"); err != nil {
		t.Fatalf("the model models.json now lists: %v", err)
	}
}
