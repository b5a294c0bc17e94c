package ui

import (
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
)

// An extension's notify is read, then goes: it shows above the input
// until the user's next message, as pi's notices scroll away with its
// chat; setStatus and setWidget stay until the extension clears them.
func TestExtensionNoticeGoesAtTheNextTurn(t *testing.T) {
	r, sid := extRig(t)
	pub := r.m.opts.Host.Events.Publish
	pub(events.ExtensionStatus{SessionID: sid, Method: "setStatus", Key: "deploy", Text: "deploy: staging"})
	pub(events.ExtensionStatus{SessionID: sid, Method: "setWidget", Key: "w", Lines: []string{"--- board ---"}})
	pub(events.Notice{SessionID: sid, Level: "info", Source: "/home/u/.pi/agent/extensions/deploy.ts", Text: "Deployed to staging."})
	r.waitScreen("· deploy.ts: Deployed to staging.", "--- board ---", "deploy: staging")
	r.say("next")
	r.waitScreen("answer to next", "--- board ---", "deploy: staging")
	// A notice said during the turn stays to be read after it.
	pub(events.Notice{SessionID: sid, Level: "warning", Source: "pi", Text: "second notice"})
	r.waitScreen("! pi: second notice", "answer to next")
	final := r.final()
	if strings.Contains(final, "Deployed to staging") {
		t.Errorf("the notice stayed above the input after the next turn:\n%s", final)
	}
	for _, kept := range []string{"--- board ---", "deploy: staging", "second notice"} {
		if !strings.Contains(final, kept) {
			t.Errorf("%q is gone:\n%s", kept, final)
		}
	}
}
