package events

import (
	"context"
	"errors"
	"testing"
	"time"
)

// An extension's question reaches the program showing its session, and
// its reply goes back to the extension; nobody showing the session cancels
// it at once, and its timeout withdraws it.
func TestAskDialog(t *testing.T) {
	b := New()
	ctx := context.Background()
	if _, err := b.AskDialog(ctx, "s1", Dialog{Method: "confirm", Title: "Deploy?"}); !errors.Is(err, ErrUnattended) {
		t.Fatalf("unattended: %v", err)
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	sub := b.Subscribe(sctx, Approvals)
	sub.Show("s1")
	got := make(chan DialogReply, 1)
	go func() {
		r, err := b.AskDialog(ctx, "s1", Dialog{Method: "select", Title: "Pick", Options: []string{"a", "b"}})
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	asked := nextAsked(t, sub)
	if asked.Dialog == nil || asked.Dialog.Title != "Pick" || len(asked.Dialog.Options) != 2 {
		t.Fatalf("asked %+v", asked)
	}
	if !sub.Reply(asked.ID, DialogReply{Value: "b"}) {
		t.Fatal("the reply found no open question")
	}
	if r := <-got; r.Value != "b" || r.Cancelled {
		t.Fatalf("reply %+v", r)
	}
	// A timeout withdraws the question, which the extension sees as
	// cancelled.
	r, err := b.AskDialog(ctx, "s1", Dialog{Method: "input", Timeout: time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !r.Cancelled {
		t.Fatalf("timeout: %+v %v", r, err)
	}
}

func nextAsked(t *testing.T, sub *Subscription) Asked {
	t.Helper()
	for {
		batch, ok := sub.Next()
		if !ok {
			t.Fatal("the subscription ended")
		}
		for _, e := range batch {
			if a, ok := e.(Asked); ok {
				return a
			}
		}
	}
}
