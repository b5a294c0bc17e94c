// Package events is the core's one event broker. The runtimes publish
// their agent events and approval questions here, the registries publish
// "projects or sessions changed", and every program that shows them (the
// local terminal UI, each SSH client) subscribes with a context of its own:
// the subscription ends with that context, so nothing outlives the program
// that subscribed.
//
// Delivery never blocks the publisher. Each subscription has its own queue,
// without bound, and the subscriber takes what has queued in batches
// (Subscription.Next). Nothing is dropped: the end of a turn, a tool line,
// an approval and its answer always arrive, in the order they were
// published. Two kinds of message coalesce while they wait in a queue, and
// only with a message of the same kind directly before them: streamed text
// of one session (the deltas are concatenated, so a subscriber that fell
// behind catches up in one step and shows the same text) and "projects
// changed" (one reload covers many writes).
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

	"github.com/pi-tui/pi-tui/core/agent"
)

// Topic is a kind of message; a subscription names the topics it wants.
type Topic uint8

// Topics.
const (
	// Agent carries agent.Event values: the runtimes' launches and
	// retirements and their agents' turns (tokens, tool calls, the end).
	Agent Topic = 1 << iota
	// Approvals carries Asked and Resolved.
	Approvals
	// Projects carries ProjectsChanged.
	Projects
)

// Asked is an approval question of a session's turn.
type Asked struct {
	ID      uint64
	Session string
	// Root is the folder the session works in (for a diff): the project's,
	// or the session's own worktree. ProjectRoot is the project's, which
	// keys its approval rules.
	Root, ProjectRoot string
	Request           agent.Approval
}

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

// Resolved says how a question ended. Every subscriber that was shown the
// question gets it, the one that answered too.
type Resolved struct {
	ID      uint64
	Session string
	Answer  Answer
	// By is the subscription that answered (Subscription.ID); 0 when the
	// core ended the question.
	By uint64
	// Withdrawn: the turn ended or was aborted before anyone answered.
	Withdrawn bool
	// Unattended: the last program showing the session left it, and the
	// question was denied.
	Unattended bool
}

// ProjectsChanged says projects, their memory or their sessions changed
// (a registry write, a memory save, a session's turn or compaction): lists
// should be reloaded. ProjectID is "" when more than one may have changed.
type ProjectsChanged struct{ ProjectID string }

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
	b      *Broker
	id     uint64
	topics Topic
	ctx    context.Context
	signal chan struct{} // one token: something queued since the last Next

	// Under b.mu: which session's messages (agent events, approvals) the
	// subscriber wants and answers for.
	scoped bool   // false: every session's; true: only show's
	show   string // the session shown ("" with scoped: none)

	mu    sync.Mutex
	queue []any
}

// Subscribe starts a subscription to topics that ends when ctx ends. Until
// Show is called it receives the messages of every session.
func (b *Broker) Subscribe(ctx context.Context, topics Topic) *Subscription {
	b.mu.Lock()
	b.nextSub++
	s := &Subscription{b: b, id: b.nextSub, topics: topics, ctx: ctx, signal: make(chan struct{}, 1)}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	// AfterFunc starts no goroutine until ctx ends.
	context.AfterFunc(ctx, func() { b.unsubscribe(s) })
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
		if q.asked.Session == sessionID {
			open = append(open, q.asked)
		}
	}
	slices.SortFunc(open, func(x, y Asked) int { return cmp.Compare(x.ID, y.ID) })
	for _, a := range open {
		s.push(a)
	}
}

// Next waits until messages are queued and returns them all, oldest
// first. It returns false once the subscription's context has ended.
func (s *Subscription) Next() ([]any, bool) {
	for {
		select {
		case <-s.signal:
		case <-s.ctx.Done():
			return nil, false
		}
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		s.mu.Unlock()
		if len(batch) > 0 {
			return batch, true
		}
	}
}

// Answer answers question id as this subscriber and reports whether it was
// still open (it may have been answered elsewhere or withdrawn since).
func (s *Subscription) Answer(id uint64, a Answer) bool {
	return s.b.resolve(id, Resolved{Answer: a, By: s.id})
}

// Publish delivers msg to every subscription whose topics and session
// include it: an agent.Event to Agent subscribers, ProjectsChanged to
// Projects subscribers. It never blocks on a subscriber.
func (b *Broker) Publish(msg any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.publishLocked(msg)
}

func (b *Broker) publishLocked(msg any) {
	var topic Topic
	session, scoped := "", false
	switch m := msg.(type) {
	case agent.Event:
		topic, session, scoped = Agent, m.SessionID, true
	case Asked:
		topic, session, scoped = Approvals, m.Session, true
	case Resolved:
		topic, session, scoped = Approvals, m.Session, true
	case ProjectsChanged:
		topic = Projects
	default:
		return
	}
	for s := range b.subs {
		if s.topics&topic == 0 || scoped && s.scoped && s.show != session {
			continue
		}
		s.push(msg)
	}
}

// push queues msg, coalescing it with the message before it when both are
// streamed text of one session or both say projects changed.
func (s *Subscription) push(msg any) {
	s.mu.Lock()
	if n := len(s.queue); n > 0 {
		switch m := msg.(type) {
		case agent.Event:
			if last, ok := s.queue[n-1].(agent.Event); ok && m.Type == agent.EventMessageUpdate &&
				last.Type == agent.EventMessageUpdate && last.SessionID == m.SessionID {
				last.Delta += m.Delta
				last.Thinking += m.Thinking
				s.queue[n-1] = last
				s.mu.Unlock()
				return
			}
		case ProjectsChanged:
			if last, ok := s.queue[n-1].(ProjectsChanged); ok {
				if last.ProjectID != m.ProjectID {
					s.queue[n-1] = ProjectsChanged{}
				}
				s.mu.Unlock()
				return
			}
		}
	}
	s.queue = append(s.queue, msg)
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// unsubscribe ends s: it gets nothing more, and the questions of the
// session it showed that nobody else shows are denied.
func (b *Broker) unsubscribe(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.subs[s]; !ok {
		return
	}
	delete(b.subs, s)
	if s.scoped && s.show != "" {
		b.denyUnattendedLocked(s.show)
	}
	s.mu.Lock()
	s.queue = nil
	s.mu.Unlock()
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
		if q.asked.Session == session {
			b.resolveLocked(id, Resolved{Unattended: true})
		}
	}
}

// Ask publishes an approval question and waits until a subscriber answers
// it, ctx ends (the question is withdrawn; ctx's error is returned) or the
// last subscriber showing its session leaves (denied). With no subscriber
// showing the session it returns ErrUnattended at once.
func (b *Broker) Ask(ctx context.Context, session, root, projectRoot string, req agent.Approval) (Answer, error) {
	b.mu.Lock()
	if !b.attendedLocked(session) {
		b.mu.Unlock()
		return Answer{}, ErrUnattended
	}
	b.nextAsk++
	q := &question{asked: Asked{ID: b.nextAsk, Session: session, Root: root, ProjectRoot: projectRoot, Request: req}, reply: make(chan Resolved, 1)}
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
	r.ID, r.Session = id, q.asked.Session
	q.reply <- r
	b.publishLocked(r)
	return true
}
