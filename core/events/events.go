// Package events is the core's one event broker and the closed set of
// events it carries (kinds.go). The runtimes' engines publish their turns
// here, the runtime manager its launches and retirements, the broker
// itself approval questions, the host "projects, memory or a session
// changed"; every program that shows them (the local terminal UI, each SSH
// client) or writes them out (rpc, prompt --json, through the one encoder
// in wire.go) subscribes with a context of its own: the subscription ends
// with that context, so nothing outlives the program that subscribed.
//
// Delivery never blocks the publisher. Each subscription has its own queue,
// without bound, and the subscriber takes what has queued in batches
// (Subscription.Next). Nothing is dropped: the end of a turn, a tool line,
// an approval and its answer always arrive, in the order they were
// published. Two kinds of message coalesce while they wait in a queue, and
// only with a message of the same kind directly before them: streamed text
// (or reasoning) of one session (the deltas are concatenated, so a
// subscriber that fell behind catches up in one step and shows the same
// text) and "projects changed" (one reload covers many writes). A Verbatim
// subscription coalesces nothing.
//
// An approval question lives here, in the core, until it is answered (by
// any subscriber showing its session), withdrawn (its turn ended or was
// aborted) or denied because no program shows its session any more. Every
// subscriber showing the session sees the question and how it ended.
package events

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
)

// Topic is a kind of message; a subscription names the topics it wants.
type Topic uint8

// Topics.
const (
	// Agent carries the runtimes' launches and retirements and their
	// agents' turns: every kind an engine produces (tokens, tool calls,
	// compaction, the queue, the end).
	Agent Topic = 1 << iota
	// Approvals carries Asked and Resolved.
	Approvals
	// Projects carries ProjectsChanged.
	Projects
	// Memory carries MemoryChanged.
	Memory
	// Sessions carries SessionAppended, ChangesUpdated and PlanChanged.
	Sessions
)

// Option changes how a subscription queues.
type Option uint8

// Verbatim asks for every event as it was published: nothing coalesces.
// A program that writes the events out (rpc, prompt --json) uses it, so
// its client gets each delta the engine streamed.
const Verbatim Option = 1

// Publisher takes events: the Broker, or whatever stands between an
// engine and it.
type Publisher interface{ Publish(Event) }

// Answer is what a user decided.
type Answer struct {
	Allow bool
	// ForSession allows the tool for the rest of the session; the
	// runtime remembers it (only for a call that asks no reason of its own).
	ForSession bool
	// Always is the rule pattern the answering program saved for the
	// project ("go test *"), for the others to say so; "" otherwise.
	Always string
	// Reason is why the user denied the call; the model reads it.
	Reason string
}

// ErrUnattended is returned by Ask when no subscriber shows the session:
// nobody could answer, so the caller decides (headless runs deny, or
// allow with --yes).
var ErrUnattended = errors.New("no program shows the session")

// Broker fans messages out to subscriptions. The zero value is not usable:
// use New.
type Broker struct {
	mu      sync.Mutex
	subs    map[*Subscription]struct{}
	asks    map[uint64]*question
	nextSub uint64
	nextAsk uint64
}

// question is a pending Ask.
type question struct {
	asked Asked
	reply chan Resolved // buffered: resolving never blocks
}

// New returns an empty broker.
func New() *Broker {
	return &Broker{subs: map[*Subscription]struct{}{}, asks: map[uint64]*question{}}
}

// Subscription is one subscriber's queue. Its methods are safe for
// concurrent use.
type Subscription struct {
	b        *Broker
	id       uint64
	topics   Topic
	verbatim bool
	ctx      context.Context
	signal   chan struct{} // one token: something queued since the last Next
	stop     func() bool   // forgets the context's AfterFunc (Close)

	// Under b.mu: which session's messages (agent events, approvals) the
	// subscriber wants and answers for.
	scoped bool   // false: every session's; true: only show's
	show   string // the session shown ("" with scoped: none)

	mu     sync.Mutex
	queue  []Event
	closed bool // by Close: Next hands out what is queued, then false
	// text is the text of the delta last in queue while later deltas
	// are appended to it; its Text field is stale until flushText.
	// Concatenating strings instead would copy the whole text again for
	// every delta: quadratic, under the broker's lock, in a long turn
	// that a subscriber has fallen behind on.
	text []byte
}

// Subscribe starts a subscription to topics that ends when ctx ends (or
// Close is called). Until Show is called it receives the messages of
// every session.
func (b *Broker) Subscribe(ctx context.Context, topics Topic, opts ...Option) *Subscription {
	b.mu.Lock()
	b.nextSub++
	s := &Subscription{b: b, id: b.nextSub, topics: topics, ctx: ctx, signal: make(chan struct{}, 1)}
	for _, o := range opts {
		s.verbatim = s.verbatim || o == Verbatim
	}
	b.subs[s] = struct{}{}
	// AfterFunc starts no goroutine until ctx ends.
	s.stop = context.AfterFunc(ctx, func() { b.unsubscribe(s) })
	b.mu.Unlock()
	return s
}

// ID names the subscription in Resolved.By.
func (s *Subscription) ID() uint64 { return s.id }

// Show says which session the subscriber shows ("" for none): from now on
// it gets that session's agent events and approval questions only, and
// counts as one who can answer them. Questions of the session it leaves
// that nobody else shows are denied.
func (s *Subscription) Show(sessionID string) {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, live := b.subs[s]; !live {
		return
	}
	old, was := s.show, s.scoped
	s.scoped, s.show = true, sessionID
	if was && old == sessionID {
		return
	}
	if was && old != "" {
		b.denyUnattendedLocked(old)
	}
	if sessionID == "" || s.topics&Approvals == 0 {
		return
	}
	// A program that starts showing a session mid-question is asked too.
	var open []Asked
	for _, q := range b.asks {
		if q.asked.SessionID == sessionID {
			open = append(open, q.asked)
		}
	}
	slices.SortFunc(open, func(x, y Asked) int { return cmp.Compare(x.ID, y.ID) })
	for _, a := range open {
		s.push(a)
	}
}

// Next waits until messages are queued and returns them all, oldest
// first. It returns false once the subscription's context has ended, and
// after Close once what was queued before it has been returned.
func (s *Subscription) Next() ([]Event, bool) {
	for {
		select {
		case <-s.signal:
		case <-s.ctx.Done():
			return nil, false
		}
		s.mu.Lock()
		s.flushText()
		batch, closed := s.queue, s.closed
		s.queue = nil
		s.mu.Unlock()
		if len(batch) > 0 {
			if closed {
				s.signalOnce() // the next call says it is over
			}
			return batch, true
		}
		if closed {
			s.signalOnce() // every later call says so too
			return nil, false
		}
	}
}

// Close ends the subscription as its context ending would, except that
// Next still returns what had queued before: a program that writes the
// events out calls it once the events it must write have been published,
// and writes until Next says false.
func (s *Subscription) Close() {
	s.b.mu.Lock()
	s.stop()
	s.b.unsubscribeLocked(s, true)
	s.b.mu.Unlock()
	s.signalOnce()
}

func (s *Subscription) signalOnce() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// Answer answers question id as this subscriber and reports whether it was
// still open (it may have been answered elsewhere or withdrawn since).
func (s *Subscription) Answer(id uint64, a Answer) bool {
	return s.b.resolve(id, Resolved{Answer: a, By: s.id})
}

// Reply answers dialog question id as this subscriber and reports
// whether it was still open.
func (s *Subscription) Reply(id uint64, r DialogReply) bool {
	return s.b.resolve(id, Resolved{Reply: r, By: s.id})
}

// Publish delivers e to every subscription whose topics and session
// include it (see Topic). It never blocks on a subscriber. Questions are
// made by Ask only: an Asked or Resolved given here is dropped.
func (b *Broker) Publish(e Event) {
	switch e.(type) {
	case nil, Asked, Resolved:
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.publishLocked(e)
}

func (b *Broker) publishLocked(e Event) {
	topic, scoped := topicOf(e)
	session := e.Session()
	for s := range b.subs {
		if s.topics&topic == 0 || scoped && s.scoped && s.show != session {
			continue
		}
		s.push(e)
	}
}

// push queues e, coalescing it with the message before it when both are
// streamed text (or both reasoning) of one session, or both say projects
// changed; a Verbatim subscription coalesces nothing.
func (s *Subscription) push(e Event) {
	s.mu.Lock()
	if n := len(s.queue); n > 0 && !s.verbatim {
		if text, ok := sameStream(s.queue[n-1], e); ok {
			if s.text == nil {
				s.text = []byte(deltaText(s.queue[n-1]))
			}
			s.text = append(s.text, text...)
			s.mu.Unlock()
			return
		}
		if merged, ok := coalesce(s.queue[n-1], e); ok {
			s.queue[n-1] = merged
			s.mu.Unlock()
			return
		}
	}
	s.flushText()
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	s.signalOnce()
}

// flushText writes the text appended to the last delta in the queue into
// it. Called under s.mu.
func (s *Subscription) flushText() {
	if s.text == nil {
		return
	}
	n := len(s.queue) - 1
	switch l := s.queue[n].(type) {
	case TextDelta:
		l.Text = string(s.text)
		s.queue[n] = l
	case ThinkingDelta:
		l.Text = string(s.text)
		s.queue[n] = l
	}
	s.text = nil
}

// sameStream reports whether e continues last, the message queued before
// it: both streamed text, or both reasoning, of one session. It returns
// e's text.
func sameStream(last, e Event) (string, bool) {
	switch m := e.(type) {
	case TextDelta:
		l, ok := last.(TextDelta)
		return m.Text, ok && l.SessionID == m.SessionID
	case ThinkingDelta:
		l, ok := last.(ThinkingDelta)
		return m.Text, ok && l.SessionID == m.SessionID
	}
	return "", false
}

// deltaText is the text of a TextDelta or ThinkingDelta.
func deltaText(e Event) string {
	switch m := e.(type) {
	case TextDelta:
		return m.Text
	case ThinkingDelta:
		return m.Text
	}
	return ""
}

// coalesce merges e into last, the message queued before it, when one
// reload covers two changes (streamed text is sameStream's).
func coalesce(last, e Event) (Event, bool) {
	switch m := e.(type) {
	case ProjectsChanged:
		if l, ok := last.(ProjectsChanged); ok {
			if l.ProjectID != m.ProjectID {
				l = ProjectsChanged{}
			}
			return l, true
		}
	}
	return nil, false
}

// unsubscribe ends s when its context ends: it gets nothing more, what it
// had queued is dropped, and the questions of the session it showed that
// nobody else shows are denied.
func (b *Broker) unsubscribe(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unsubscribeLocked(s, false)
}

// unsubscribeLocked removes s from the broker; keep says whether its
// queue stays for Next (Close) or goes (its context ended).
func (b *Broker) unsubscribeLocked(s *Subscription, keep bool) {
	s.mu.Lock()
	if keep {
		s.closed = true
	} else {
		s.queue, s.text = nil, nil
	}
	s.mu.Unlock()
	if _, ok := b.subs[s]; !ok {
		return
	}
	delete(b.subs, s)
	if s.scoped && s.show != "" {
		b.denyUnattendedLocked(s.show)
	}
}

// attendedLocked reports whether a subscriber to approvals shows session.
func (b *Broker) attendedLocked(session string) bool {
	for s := range b.subs {
		if s.topics&Approvals != 0 && s.scoped && s.show == session {
			return true
		}
	}
	return false
}

// denyUnattendedLocked denies the open questions of session when no
// subscriber shows it any more.
func (b *Broker) denyUnattendedLocked(session string) {
	if b.attendedLocked(session) {
		return
	}
	for id, q := range b.asks {
		if q.asked.SessionID == session {
			b.resolveLocked(id, Resolved{Unattended: true})
		}
	}
}

// Ask publishes an approval question and waits until a subscriber answers
// it, ctx ends (the question is withdrawn; ctx's error is returned) or the
// last subscriber showing its session leaves (denied). With no subscriber
// showing the session it returns ErrUnattended at once.
func (b *Broker) Ask(ctx context.Context, session, root, projectRoot string, req Approval) (Answer, error) {
	b.mu.Lock()
	if !b.attendedLocked(session) {
		b.mu.Unlock()
		return Answer{}, ErrUnattended
	}
	b.nextAsk++
	q := &question{asked: Asked{ID: b.nextAsk, SessionID: session, Root: root, ProjectRoot: projectRoot, Request: req}, reply: make(chan Resolved, 1)}
	b.asks[q.asked.ID] = q
	b.publishLocked(q.asked)
	b.mu.Unlock()
	select {
	case r := <-q.reply:
		return r.Answer, nil
	case <-ctx.Done():
		b.resolve(q.asked.ID, Resolved{Withdrawn: true})
		return Answer{}, ctx.Err()
	}
}

// AskDialog publishes an extension's question and waits as Ask does:
// until a subscriber replies, ctx ends (withdrawn; ctx's error), the
// dialog's Timeout passes (withdrawn; context.DeadlineExceeded) or the
// last subscriber showing the session leaves (Cancelled). With no
// subscriber showing the session it returns ErrUnattended at once, and
// the caller cancels the dialog, saying so.
func (b *Broker) AskDialog(ctx context.Context, session string, d Dialog) (DialogReply, error) {
	if d.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.Timeout)
		defer cancel()
	}
	b.mu.Lock()
	if !b.attendedLocked(session) {
		b.mu.Unlock()
		return DialogReply{}, ErrUnattended
	}
	b.nextAsk++
	q := &question{asked: Asked{ID: b.nextAsk, SessionID: session, Dialog: &d}, reply: make(chan Resolved, 1)}
	b.asks[q.asked.ID] = q
	b.publishLocked(q.asked)
	b.mu.Unlock()
	select {
	case r := <-q.reply:
		if r.Unattended || r.Withdrawn {
			return DialogReply{Cancelled: true}, nil
		}
		return r.Reply, nil
	case <-ctx.Done():
		b.resolve(q.asked.ID, Resolved{Withdrawn: true})
		return DialogReply{Cancelled: true}, ctx.Err()
	}
}

// resolve ends question id with r and reports whether it was still open.
func (b *Broker) resolve(id uint64, r Resolved) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.resolveLocked(id, r)
}

func (b *Broker) resolveLocked(id uint64, r Resolved) bool {
	q, ok := b.asks[id]
	if !ok {
		return false
	}
	delete(b.asks, id)
	r.ID, r.SessionID = id, q.asked.SessionID
	q.reply <- r
	b.publishLocked(r)
	return true
}

// Follow calls each with every event of topics, in order, from a
// goroutine of its own, until stop is called; stop returns once each has
// had every event published before it. It is how a command that writes
// events out (rpc, prompt) follows a run.
func (b *Broker) Follow(topics Topic, each func(Event), opts ...Option) (stop func()) {
	sub := b.Subscribe(context.Background(), topics, opts...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			batch, ok := sub.Next()
			if !ok {
				return
			}
			for _, e := range batch {
				each(e)
			}
		}
	}()
	return func() {
		sub.Close()
		<-done
	}
}
