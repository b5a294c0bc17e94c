package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// A turn in which the model changes files in two steps (one tool call,
// its result, then another call) is listed in the Review screen under one
// heading, the message that started it, with both changes below it.
func TestReviewHeadsATurnOnce(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 100, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		switch {
		case req.LastToolResult == "":
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w1", Name: "write", Args: map[string]string{"path": "a.txt", "content": "a\n"}}}}
		case !strings.Contains(req.Raw, `"w2"`):
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w2", Name: "write", Args: map[string]string{"path": "b.txt", "content": "b\n"}}}}
		}
		return fakemodel.Reply{Text: "both written"}
	}, true)
	if err := r.m.opts.Host.SetPermissionMode(context.Background(), "full-auto"); err != nil {
		t.Fatal(err)
	}
	r.chat()
	r.say("two files")
	r.waitFor("both written")
	r.command("/changes", "Review · the session's file changes", "2 changes")
	r.waitScreen("── you: two files", "1  active  A  +1 −0  write  a.txt", "2  active  A  +1 −0  write  b.txt")
	view := r.final()
	if n := strings.Count(view, "── you: two files"); n != 1 {
		t.Errorf("the turn's heading shows %d times, want once:\n%s", n, view)
	}
}
