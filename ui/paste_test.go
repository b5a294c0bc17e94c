package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// inputRows returns the frame's rows from the input's prompt on.
func inputRows(frame string) []string {
	rows := strings.Split(frame, "\n")
	for i, r := range rows {
		if strings.HasPrefix(r, "› ") {
			return rows[i:]
		}
	}
	return nil
}

// A paste of 200 lines shows in the input as one marker, as pi shows it;
// the model and the session file get all 200 lines, the transcript shows
// them as pi does, and ↑ brings the message back with its marker.
func TestLongPasteIsOneMarkerAndIsSentWhole(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(itoa(size.w)+"x"+itoa(size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, func(n int, req fakemodel.Request) fakemodel.Reply {
				return fakemodel.Reply{Text: fmt.Sprintf("answer %d: got %d lines", n+1, strings.Count(req.LastUser, "\n")+1)}
			}, true)
			r.chat()
			text := numbered(200)
			r.tm.Send(pasteMsg(text + "\n"))
			frame := r.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "› [paste #1 +200 lines]") })
			in := inputRows(frame)
			if strings.Contains(frame, "pasted line") || len(in) == 0 || strings.TrimSpace(in[1]) != "" {
				t.Errorf("the paste is not one marker line in the input:\n%s", frame)
			}
			r.keys("enter")
			r.waitFor("answer 1: got 200 lines")
			reqs := r.fake.Requests()
			if got := reqs[len(reqs)-1].LastUser; got != text {
				t.Errorf("the model received %d lines (%q…), want the 200 pasted", strings.Count(got, "\n")+1, got[:min(len(got), 40)])
			}
			ids := r.sessionIDs()
			s, err := r.m.opts.Host.Runtimes.Sessions().Open(context.Background(), ids[0])
			if err != nil {
				t.Fatal(err)
			}
			file, err := os.ReadFile(s.File())
			quoted, _ := json.Marshal(text)
			if err != nil || !strings.Contains(string(file), string(quoted)) || strings.Contains(string(file), "[paste #") {
				t.Errorf("the session file does not hold the whole paste (%v)", err)
			}
			// The transcript shows the message whole, as pi's does.
			r.waitScreen("pasted line 200", "answer 1: got 200 lines")
			// ↑ recalls the message as the input showed it; sent again, whole.
			r.keys("up")
			r.waitScreen("› [paste #1 +200 lines]")
			r.keys("enter")
			r.waitFor("answer 2: got 200 lines")
			reqs = r.fake.Requests()
			if got := reqs[len(reqs)-1].LastUser; got != text {
				t.Errorf("the recalled message reached the model as %d lines", strings.Count(got, "\n")+1)
			}
			r.final()
		})
	}
}

// ctrl+x on a marker (or just after it, where a paste leaves the cursor)
// opens it into its text, to edit; what is sent is the text as edited.
// ctrl+z collapses it again.
func TestPasteMarkerExpandsToEdit(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 80, 24, echoModel, true)
	r.chat()
	r.tm.Type("fix this: ")
	r.tm.Send(pasteMsg(numbered(200)))
	r.waitScreen("› fix this: [paste #1 +200 lines]", "ctrl+x expands the paste")
	r.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlX})
	frame := r.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "› fix this: pasted line 1") })
	if strings.Contains(frame, "[paste #") || !strings.Contains(frame, "pasted line 7") {
		t.Errorf("the expanded paste does not show its text to edit:\n%s", frame)
	}
	r.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlZ})
	r.waitScreen("› fix this: [paste #1 +200 lines]")
	r.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlY})
	r.waitScreen("› fix this: pasted line 1")
	r.tm.Type("EDITED ")
	r.waitScreen("› fix this: EDITED pasted line 1")
	r.keys("enter")
	r.waitFor("got 200 lines")
	reqs := r.fake.Requests()
	if got := reqs[len(reqs)-1].LastUser; got != "fix this: EDITED "+numbered(200) {
		t.Errorf("the model received %q…", got[:min(len(got), 60)])
	}
	r.final()
}
