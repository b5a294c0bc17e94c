package events

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

func token(sid, text string) TextDelta { return TextDelta{SessionID: sid, Text: text} }

// next takes one batch, failing the test instead of hanging.
func next(t *testing.T, s *Subscription) []Event {
	t.Helper()
	got := make(chan []Event, 1)
	go func() { b, _ := s.Next(); got <- b }()
	select {
	case b := <-got:
		return b
	case <-time.After(time.Minute): // a fail-safe; the batch ends the wait
		t.Fatal("no batch arrived")
		return nil
	}
}

// A subscriber that reads nothing while a long turn streams never holds
// the publisher up, and when it reads it gets the whole text and the end
// of the turn, in order.
func TestSlowSubscriberLosesNothingAndBlocksNothing(t *testing.T) {
	t.Parallel()
	b := New()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := b.Subscribe(ctx, Agent)
	var want strings.Builder
	for i := range 100_000 {
		w := string(rune('a' + i%26))
		want.WriteString(w)
		b.Publish(token("s1", w))
	}
	b.Publish(ToolStarted{SessionID: "s1", ToolName: "bash"})
	b.Publish(token("s1", "!"))
	b.Publish(AgentEnded{SessionID: "s1"})
	batch := next(t, slow)
	if len(batch) != 4 {
		t.Fatalf("want text, tool, text, end; got %d messages", len(batch))
	}
	if e := batch[0].(TextDelta); e.Text != want.String() {
		t.Errorf("the coalesced text differs: %d bytes, want %d", len(e.Text), want.Len())
	}
	if _, tool := batch[1].(ToolStarted); !tool || batch[2] != token("s1", "!") || batch[3] != (AgentEnded{SessionID: "s1"}) {
		t.Errorf("order lost: %v", batch[1:])
	}
}

// Publishing a long turn to a subscriber that has fallen behind costs the
// publisher (who holds the broker's lock meanwhile) about the text's size,
// not the text's size again for every delta: a quadratic copy made a turn
// of 100,000 deltas take seconds of CPU while the subscriber waited.
func TestCoalescingCopiesTheTextOnce(t *testing.T) {
	b := New()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := b.Subscribe(ctx, Agent)
	const deltas = 100_000
	events := make([]Event, deltas) // made before counting
	for i := range events {
		events[i] = ThinkingDelta{SessionID: "s1", Text: "ab"}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, e := range events {
		b.Publish(e)
	}
	runtime.ReadMemStats(&after)
	batch := next(t, slow)
	if len(batch) != 1 || len(batch[0].(ThinkingDelta).Text) != 2*deltas {
		t.Fatalf("want one delta of %d bytes, got %d messages", 2*deltas, len(batch))
	}
	// Appending doubles a buffer: about twice the text, and a little for
	// the runtime; a copy per delta would be 10 GB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64*deltas {
		t.Errorf("publishing %d bytes in %d deltas allocated %d bytes", 2*deltas, deltas, alloc)
	}
}

// A subscription ends with its context: Next returns false, the broker
// forgets it, and no goroutine is left behind.
func TestSubscriptionEndsWithItsContext(t *testing.T) {
	b := New()
	base := runtime.NumGoroutine()
	for range 100 {
		ctx, cancel := context.WithCancel(context.Background())
		s := b.Subscribe(ctx, Agent|Approvals)
		s.Show("s1")
		done := make(chan bool)
		go func() { _, ok := s.Next(); done <- ok }()
		cancel()
		if <-done {
			t.Fatal("Next went on after the context ended")
		}
	}
	deadline := time.Now().Add(time.Minute) // a fail-safe; the count ends the wait
	for {
		b.mu.Lock()
		n := len(b.subs)
		b.mu.Unlock()
		if n == 0 && runtime.NumGoroutine() <= base || time.Now().After(deadline) {
			if n != 0 || runtime.NumGoroutine() > base {
				t.Fatalf("%d subscriptions and %d goroutines (from %d) left", n, runtime.NumGoroutine(), base)
			}
			break
		}
		runtime.Gosched()
	}
	if _, err := b.Ask(context.Background(), "s1", "/", "/", Approval{Tool: "bash"}); !errors.Is(err, ErrUnattended) {
		t.Errorf("a question went to subscribers that had ended: %v", err)
	}
}

// Two subscribers show a session: both see the question, the first answer
// counts, both see who answered, and a late answer is refused.
func TestEitherSubscriberAnswersAndBothSeeIt(t *testing.T) {
	t.Parallel()
	b := New()
	ctx := t.Context()
	one, two := b.Subscribe(ctx, Approvals), b.Subscribe(ctx, Approvals)
	one.Show("s1")
	two.Show("s1")
	other := b.Subscribe(ctx, Approvals)
	other.Show("s2")
	got := make(chan Answer)
	go func() {
		a, err := b.Ask(ctx, "s1", "/root", "/root", Approval{Tool: "bash", Command: "ls"})
		if err != nil {
			t.Error(err)
		}
		got <- a
	}()
	q1, q2 := next(t, one)[0].(Asked), next(t, two)[0].(Asked)
	if q1.ID != q2.ID || q2.Request.Command != "ls" || q1.Request.Command != "ls" || q1.Root != "/root" {
		t.Fatalf("the subscribers were asked different things: %+v %+v", q1, q2)
	}
	if !two.Answer(q2.ID, Answer{Allow: true}) {
		t.Fatal("the answer was refused")
	}
	if a := <-got; !a.Allow {
		t.Error("the asker did not get the allow")
	}
	if one.Answer(q1.ID, Answer{}) {
		t.Error("a second answer was taken")
	}
	r := next(t, one)[0].(Resolved)
	if r.ID != q1.ID || r.By != two.ID() || !r.Answer.Allow {
		t.Errorf("the other subscriber saw %+v", r)
	}
	if r2 := next(t, two)[0].(Resolved); r2.By != two.ID() {
		t.Errorf("the answering subscriber saw %+v", r2)
	}
	other.mu.Lock()
	leaked := len(other.queue)
	other.mu.Unlock()
	if leaked != 0 {
		t.Error("a subscriber showing another session got the question")
	}
}

// A question is withdrawn when its turn ends, and denied when the last
// subscriber showing its session leaves; one that starts showing the
// session while it is open is asked too.
func TestQuestionsEndWithTheirTurnOrTheirAudience(t *testing.T) {
	t.Parallel()
	b := New()
	one := b.Subscribe(t.Context(), Approvals)
	one.Show("s1")
	turn, abort := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { _, err := b.Ask(turn, "s1", "", "", Approval{Tool: "bash"}); errc <- err }()
	q := next(t, one)[0].(Asked)
	abort()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("an aborted turn's question returned %v", err)
	}
	if r := next(t, one)[0].(Resolved); !r.Withdrawn || r.ID != q.ID {
		t.Errorf("withdrawal seen as %+v", r)
	}

	ctx2, leave2 := context.WithCancel(context.Background())
	two := b.Subscribe(ctx2, Approvals)
	got := make(chan Answer)
	go func() { a, _ := b.Ask(t.Context(), "s1", "", "", Approval{Tool: "bash"}); got <- a }()
	next(t, one)
	two.Show("s1") // joins mid-question: asked too
	if _, ok := next(t, two)[0].(Asked); !ok {
		t.Fatal("a subscriber that joined was not asked the open question")
	}
	one.Show("") // one leaves; two still shows the session
	leave2()     // the last one goes: denied
	if a := <-got; a.Allow {
		t.Error("a question nobody could answer any more was allowed")
	}
}

// Projects changes coalesce; topics filter.
func TestTopicsAndProjectsCoalesce(t *testing.T) {
	t.Parallel()
	b := New()
	p := b.Subscribe(t.Context(), Projects)
	b.Publish(token("s1", "x"))
	b.Publish(ProjectsChanged{ProjectID: "a"})
	b.Publish(ProjectsChanged{ProjectID: "a"})
	batch := next(t, p)
	if len(batch) != 1 || batch[0] != (ProjectsChanged{ProjectID: "a"}) {
		t.Fatalf("got %v", batch)
	}
	b.Publish(ProjectsChanged{ProjectID: "a"})
	b.Publish(ProjectsChanged{ProjectID: "b"})
	if batch := next(t, p); len(batch) != 1 || batch[0] != (ProjectsChanged{}) {
		t.Fatalf("two projects' changes: %v", batch)
	}
}

// BenchmarkSecondSubscriber: a token published to two subscribers of one
// session, each taking it on its own goroutine; the time is from publish
// to the second one having it.
func BenchmarkSecondSubscriber(b *testing.B) {
	br := New()
	ctx := b.Context()
	subs := []*Subscription{br.Subscribe(ctx, Agent), br.Subscribe(ctx, Agent)}
	got := make(chan struct{}, 2)
	for _, s := range subs {
		s.Show("s1")
		go func() {
			for {
				if _, ok := s.Next(); !ok {
					return
				}
				got <- struct{}{}
			}
		}()
	}
	ev := token("s1", "token ")
	b.ReportAllocs()
	for b.Loop() {
		br.Publish(ev)
		<-got
		<-got
	}
}
