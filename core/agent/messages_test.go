package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// A compaction reaches the model in pi's own words, so a session continued
// by pi or by pi-tui shows the model the same summary message.
func TestCompactionSentInPisWords(t *testing.T) {
	c, _ := json.Marshal(sessions.Compaction{Summary: "did things"})
	u, _ := json.Marshal(entries.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "next"}}}})
	msgs := Messages([]sessions.Entry{sessions.NewEntry("c1", "", sessions.TypeCompaction, c), sessions.NewEntry("u1", "c1", sessions.TypeUser, u)})
	want := "The conversation history before this point was compacted into the following summary:\n\n<summary>\ndid things\n</summary>"
	if len(msgs) != 2 || msgs[0].Role != provider.RoleUser || msgs[0].Parts[0].Text != want || want != pisession.CompactionSummaryText("did things") {
		t.Errorf("messages %+v", msgs)
	}
}

// What pi 1.6 wrote into a session between two prompts (a system-prompt
// checkpoint, a usage entry, a context_edit shortening the first answer,
// one omitting the first question) reaches the model as pi would send it:
// the edited content, nothing of the others.
func TestPi16EntriesReachTheModelAsPiSendsThem(t *testing.T) {
	h := newHarness(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: fmt.Sprintf("answer %d", n)}
	}, nil)
	ctx := context.Background()
	if _, err := h.ag.Prompt(ctx, "first question"); err != nil {
		t.Fatal(err)
	}
	path := h.sess.Path()
	q, a := path[len(path)-2], path[len(path)-1]
	at := `"timestamp":"2026-12-01T13:45:08.000Z"`
	lines := `{"type":"message","id":"s1","parentId":"` + a.ID + `",` + at + `,"message":{"role":"system","content":"","sections":{"preamble":"SECRET PROMPT"},"timestamp":1}}` + "\n" +
		`{"type":"usage","id":"k1","parentId":"s1",` + at + `,"kind":"cache_warm","provider":"p","model":"m","usage":{"input":1,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":1,"cost":{"total":0}}}` + "\n" +
		`{"type":"context_edit","id":"e1","parentId":"k1",` + at + `,"targetId":"` + a.ID + `","replacement":{"content":"short answer"}}` + "\n" +
		`{"type":"context_edit","id":"e2","parentId":"e1",` + at + `,"targetId":"` + q.ID + `","replacement":null}` + "\n"
	f, err := os.OpenFile(h.sess.File(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(lines); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := h.sess.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ag.Prompt(ctx, "second question"); err != nil {
		t.Fatal(err)
	}
	reqs := h.fake.Requests()
	raw := reqs[len(reqs)-1].Raw
	for _, gone := range []string{"first question", "answer 0", "SECRET PROMPT", "cache_warm"} {
		if strings.Contains(raw, gone) {
			t.Errorf("the model was sent %q:\n%s", gone, raw)
		}
	}
	if !strings.Contains(raw, "short answer") || !strings.Contains(raw, "second question") {
		t.Errorf("the model was not sent the edited answer and the new question:\n%s", raw)
	}
}
