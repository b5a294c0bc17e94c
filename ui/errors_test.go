package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// A failed turn says its error once, in the transcript, with advice that
// fits the screen (no command-line flags).
func TestFailedTurnShowsItsErrorOnce(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 120, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Status: 500}
	}, true)
	r.chat()
	r.say("hello")
	r.waitFor("HTTP 500")
	r.keys("esc") // let the turn's end arrive behind the error
	view := r.final()
	if n := strings.Count(view, "HTTP 500"); n != 1 {
		t.Errorf("the error is shown %d times:\n%s", n, view)
	}
	if strings.Contains(view, "--model") {
		t.Errorf("the advice names a command-line flag:\n%s", view)
	}
}

// Retries say why, which attempt and how long the wait is, in one line
// that is updated in place; the answer follows.
func TestRetriesAreShownInPlace(t *testing.T) {
	t.Parallel()
	r := newKitRigWith(t, 120, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n < 2 {
			return fakemodel.Reply{Status: 503}
		}
		return fakemodel.Reply{Text: "finally here"}
	}, true, provider.Options{MaxRetries: 3, Backoff: time.Millisecond})
	r.chat()
	r.say("hello")
	r.waitFor("finally here")
	view := r.final()
	if !strings.Contains(view, "HTTP 503, retry 2 of 3 in ") {
		t.Errorf("no retry line:\n%s", view)
	}
	if n := strings.Count(view, "retry "); n != 1 {
		t.Errorf("%d retry lines, want one updated in place:\n%s", n, view)
	}
}

// A reopened session reads as it did live: a turn of tool calls only shows
// its tool lines (no empty "pi" header), and an aborted answer is marked
// partial, not shown as an error.
func TestReopenedTranscriptReadsAsLive(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	defer close(hold)
	r := newKitRig(t, 120, 36, func(n int, req fakemodel.Request) fakemodel.Reply {
		switch {
		case strings.Contains(req.LastUser, "slow"):
			return fakemodel.Reply{Text: "some words", Hold: hold}
		case req.LastToolResult == "" && strings.Contains(req.LastUser, "read"):
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "c1", Name: "read", Args: map[string]string{"path": "notes.txt"}}}}
		}
		return fakemodel.Reply{Text: "the notes say hello"}
	}, true)
	r.chat()
	r.say("read the notes")
	r.waitFor("the notes say hello")
	r.say("slow one")
	r.waitFor("some wo")
	r.keys("esc")
	r.waitFor("partial: the answer was cut off or aborted")
	r.sessions("enter open")
	r.keys("enter")
	r.waitFor("slow one")
	view := r.final()
	lines := strings.Split(view, "\n")
	headers := 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "pi" || strings.HasPrefix(strings.TrimSpace(l), "pi  (partial") {
			headers++
		}
	}
	if headers != 2 {
		t.Errorf("%d answer headers, want 2 (the answer and the aborted one):\n%s", headers, view)
	}
	if !strings.Contains(view, "partial: the answer was cut off or aborted") || strings.Contains(view, "✗ ") || strings.Contains(view, "canceled") {
		t.Errorf("the aborted answer reopened as an error:\n%s", view)
	}
}
