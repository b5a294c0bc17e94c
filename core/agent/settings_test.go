package agent

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

func compactions(s *sessions.Session) []sessions.Compaction {
	var out []sessions.Compaction
	for _, e := range s.Path() {
		if e.Type == sessions.TypeCompaction {
			var c sessions.Compaction
			json.Unmarshal(e.Payload(), &c)
			out = append(out, c)
		}
	}
	return out
}

// compaction.enabled and compaction.reserveTokens decide automatic
// compaction: it runs when the context (120 tokens from the fake model)
// exceeds the window less the reserve, and never when it is off.
func TestCompactionFollowsPiSettings(t *testing.T) {
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if strings.Contains(req.Raw, "Summarise the conversation above") {
			return fakemodel.Reply{Text: "SUMMARY"}
		}
		return fakemodel.Reply{Text: "ok"}
	}
	for _, c := range []struct {
		set  pisettings.Compaction
		want int
	}{
		{pisettings.Compaction{Enabled: true, ReserveTokens: 900}, 1}, // 120 > 1000-900
		{pisettings.Compaction{Enabled: true, ReserveTokens: 800}, 0}, // 120 <= 200
		{pisettings.Compaction{Enabled: false, ReserveTokens: 900}, 0},
	} {
		set := c.set
		h := newHarness(t, script, func(cfg *Config) { cfg.Model.ContextWindow = 1000; cfg.Compaction = &set })
		h.ag.Prompt(context.Background(), "one")
		if _, err := h.ag.Prompt(context.Background(), "two"); err != nil {
			t.Fatal(err)
		}
		if got := len(compactions(h.sess)); got != c.want {
			t.Errorf("%+v: %d automatic compactions, want %d", c.set, got, c.want)
		}
	}
}

// compaction.keepRecentTokens: the newest entries worth that many tokens
// (characters / 4, as pi counts) stay as they are; the cut falls on a
// user message.
func TestCompactionKeepsRecentTokens(t *testing.T) {
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if strings.Contains(req.Raw, "Summarise the conversation above") {
			return fakemodel.Reply{Text: "SUMMARY"}
		}
		return fakemodel.Reply{Text: "ok"}
	}
	set := pisettings.Compaction{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 150}
	h := newHarness(t, script, func(cfg *Config) { cfg.Compaction = &set })
	for _, p := range []string{"1", "2", "3", "4"} {
		h.ag.Prompt(context.Background(), p+strings.Repeat("x", 399)) // 100 tokens each
	}
	if _, err := h.ag.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	cs := compactions(h.sess)
	if len(cs) != 1 {
		t.Fatalf("compactions = %+v", cs)
	}
	var kept string
	for _, e := range h.sess.Entries() {
		if e.ID == cs[0].FirstKeptEntryID {
			var sm entries.StoredMessage
			json.Unmarshal(e.Payload(), &sm)
			kept = textOf(sm.Message)
		}
	}
	if !strings.HasPrefix(kept, "3x") {
		t.Errorf("first kept message = %.10q, want the third prompt (the last two turns hold >= 150 tokens)", kept)
	}
}

// shellPath replaces bash and shellCommandPrefix runs before every
// command; a shellPath that does not exist is a clear error.
func TestBashUsesShellPathAndPrefix(t *testing.T) {
	run := func(sh pisettings.Shell) string {
		h := newHarness(t, func(n int, req fakemodel.Request) fakemodel.Reply {
			if n == 0 {
				return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b", Name: "bash", Args: map[string]string{"command": `echo "shell=$0 prefixed=$PREFIXED"`}}}}
			}
			return fakemodel.Reply{Text: req.LastToolResult}
		}, func(c *Config) { c.Shell = sh })
		res, err := h.ag.Prompt(context.Background(), "run")
		if err != nil {
			t.Fatal(err)
		}
		return res.Text
	}
	if out := run(pisettings.Shell{Path: "/bin/sh", Prefix: "PREFIXED=yes"}); !strings.Contains(out, "shell=/bin/sh prefixed=yes") {
		t.Errorf("output = %q", out)
	}
	if out := run(pisettings.Shell{}); !strings.Contains(out, "shell=bash prefixed=") {
		t.Errorf("default output = %q", out)
	}
	missing := filepath.Join(t.TempDir(), "no-such-shell")
	if out := run(pisettings.Shell{Path: missing}); !strings.Contains(out, missing+" set as shellPath in settings.json cannot be used") {
		t.Errorf("missing shell output = %q", out)
	}
}

// A local model whose whole window is no larger than pi's default reserve
// (16,384 tokens) still answers the first prompt, and does not compact
// before every call: the reserve is capped to a quarter of the window.
func TestSmallWindowDoesNotCompactEveryCall(t *testing.T) {
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if strings.Contains(req.Raw, "Summarise the conversation above") {
			return fakemodel.Reply{Text: "SUMMARY"}
		}
		return fakemodel.Reply{Text: "ok"}
	}
	set := pisettings.Compaction{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}
	h := newHarness(t, script, func(cfg *Config) { cfg.Model.ContextWindow = 8192; cfg.Compaction = &set })
	for _, p := range []string{"one", "two", "three"} {
		if _, err := h.ag.Prompt(context.Background(), p); err != nil {
			t.Fatalf("prompt %q: %v", p, err)
		}
	}
	if got := len(compactions(h.sess)); got != 0 {
		t.Errorf("%d compactions with 120 of 8,192 tokens used", got)
	}
}
