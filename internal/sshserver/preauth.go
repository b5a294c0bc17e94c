package sshserver

import (
	"net"
	"slices"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
)

// Connections that have not authenticated yet cost a descriptor and a
// goroutine each, and anyone who can reach the port can open them. So at
// most Config.MaxUnauthenticated of them are served at once; the next ones
// wait, unanswered, in order of arrival (up to waitingPerSlot for each
// slot; beyond that a connection is closed at once). A served connection
// has Config.BannerTimeout to send its identification line, and every
// connection has Config.HandshakeTimeout from its arrival, waiting
// included, to authenticate. While connections wait, a served one that
// has taken no step for Config.StallTimeout gives up its slot: it is
// closed, the least advanced first, and the first waiting one is served.
// A client whose key was accepted (its user may be typing the key's
// passphrase) is never closed for stalling. The limits end once the key
// is verified.
//
// Waiting, not refusing or dropping on arrival, is what keeps a flood
// from locking everyone out (docs/adr/0036-ssh-preauth-flood.md): a
// flood that reopens every connection the server closes would win each
// freed slot, or, if arrivals pushed out the oldest, turn every slot over
// faster than a real client can finish its key exchange. A connection
// left waiting is not reopened, so the flood goes at the server's pace
// and an authorised client is served after the connections ahead of it.

// waitingPerSlot bounds the connections waiting for a slot, per slot.
const waitingPerSlot = 16

type pendingKey struct{}

// progress is how far a connection has got towards authenticating. Each
// step is one a client following the protocol takes within a round trip
// or two of the one before, except the last.
type progress int

const (
	connected      progress = iota // accepted, no identification line yet
	identified                     // sent its SSH identification line
	exchanging                     // sent its first packet of the key exchange
	keyed                          // sent NEWKEYS: the key exchange is done
	authenticating                 // asked to authenticate
	knownKey                       // offered a key of the authorized_keys file
)

// admission holds the connections not yet authenticated.
type admission struct {
	mu       sync.Mutex
	serving  map[*pendingConn]struct{}
	queue    []*pendingConn // waiting, in order of arrival
	closed   bool           // shutting down: refuse new connections
	busy     bool           // a wait was logged since the server was last not full
	overflow bool           // a refusal was logged likewise
	timer    *time.Timer    // runs makeRoom when a served connection may have stalled
}

// pendingConn is a connection that has not authenticated yet. Once it is
// served, every deadline the library sets on it (its idle timeout) is
// capped at the banner deadline, then at the handshake deadline.
type pendingConn struct {
	net.Conn
	s         *Server
	handshake time.Time // the deadline for authenticating
	turn      chan bool // receives true when served, false when shut out

	// Guarded by s.adm.mu.
	progress progress
	since    time.Time // when it was served or took its last step

	opening openingScanner // what the client sends first; Read only

	mu       sync.Mutex
	deadline time.Time // the deadline in force; zero once authenticated
}

// admitConn is the library's ConnCallback: it counts a new connection in
// and returns once it is served, or closes it (by returning nil) when the
// waiting room is full, its handshake deadline passes while it waits, or
// the server is shutting down. Each connection has its own goroutine
// here: the accept loop does not wait.
func (s *Server) admitConn(ctx ssh.Context, c net.Conn) net.Conn {
	a := &s.adm
	pc := &pendingConn{Conn: c, s: s, handshake: time.Now().Add(s.cfg.HandshakeTimeout), turn: make(chan bool, 1)}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	// One log line per episode, not per connection: a flood must not fill
	// the disk.
	var outcome string
	switch {
	case len(a.queue) >= waitingPerSlot*s.cfg.MaxUnauthenticated:
		if !a.overflow {
			a.overflow = true
			outcome = "refused too-many-unauthenticated"
		}
		a.mu.Unlock()
		if outcome != "" {
			s.logConn("-", "-", c.RemoteAddr(), outcome)
		}
		return nil
	case len(a.serving) >= s.cfg.MaxUnauthenticated && !a.busy:
		a.busy = true
		outcome = "waiting too-many-unauthenticated"
	}
	a.queue = append(a.queue, pc)
	drop := s.makeRoomLocked(time.Now())
	a.mu.Unlock()
	closeConns(drop)
	if outcome != "" {
		s.logConn("-", "-", c.RemoteAddr(), outcome)
	}

	t := time.NewTimer(time.Until(pc.handshake))
	defer t.Stop()
	var served bool
	select {
	case served = <-pc.turn:
	case <-t.C:
		a.mu.Lock()
		waiting := a.unqueueLocked(pc)
		a.mu.Unlock()
		if !waiting {
			served = <-pc.turn // it was served or shut out meanwhile
		}
	}
	if !served {
		return nil
	}
	d := time.Now().Add(s.cfg.BannerTimeout)
	if pc.handshake.Before(d) {
		d = pc.handshake
	}
	pc.mu.Lock()
	pc.deadline = d
	c.SetDeadline(d)
	pc.mu.Unlock()
	ctx.SetValue(pendingKey{}, pc)
	return pc
}

// makeRoomLocked serves waiting connections while there is a free slot or
// a served connection has stalled (that one is taken out of the count and
// returned, for the caller to close outside the lock), then sets the
// timer for the next possible stall.
func (s *Server) makeRoomLocked(now time.Time) (drop []*pendingConn) {
	a := &s.adm
	for len(a.queue) > 0 {
		if len(a.serving) >= s.cfg.MaxUnauthenticated {
			v := s.stalledLocked(now)
			if v == nil {
				break
			}
			delete(a.serving, v)
			drop = append(drop, v)
		}
		pc := a.queue[0]
		a.queue[0] = nil
		a.queue = a.queue[1:]
		pc.since = now
		a.serving[pc] = struct{}{}
		pc.turn <- true
	}
	if len(a.queue) == 0 && len(a.serving) < s.cfg.MaxUnauthenticated {
		a.busy, a.overflow = false, false
	}
	s.armLocked(now)
	return drop
}

// stalledLocked is the served connection to close for stalling, or nil:
// of those that took no step for StallTimeout, the least advanced, and of
// those the one that stalled first. A client whose key was accepted is
// never one. Every stalled connection can be closed, whatever else is
// served: a flood cannot shield its stalled connections behind fresh ones.
func (s *Server) stalledLocked(now time.Time) *pendingConn {
	var v *pendingConn
	for pc := range s.adm.serving {
		if pc.progress >= knownKey || now.Sub(pc.since) < s.cfg.StallTimeout {
			continue
		}
		if v == nil || pc.progress < v.progress || pc.progress == v.progress && pc.since.Before(v.since) {
			v = pc
		}
	}
	return v
}

// armLocked sets the timer for the first moment a served connection may
// have stalled, if a connection waits for a slot.
func (s *Server) armLocked(now time.Time) {
	a := &s.adm
	var next time.Time
	if len(a.queue) > 0 && !a.closed {
		for pc := range a.serving {
			if t := pc.since.Add(s.cfg.StallTimeout); pc.progress < knownKey && (next.IsZero() || t.Before(next)) {
				next = t
			}
		}
	}
	switch {
	case next.IsZero():
		if a.timer != nil {
			a.timer.Stop()
		}
	case a.timer == nil:
		a.timer = time.AfterFunc(next.Sub(now), s.stallCheck)
	default:
		a.timer.Reset(next.Sub(now))
	}
}

// stallCheck runs when a served connection may have stalled.
func (s *Server) stallCheck() {
	s.adm.mu.Lock()
	drop := s.makeRoomLocked(time.Now())
	s.adm.mu.Unlock()
	closeConns(drop)
}

// unqueueLocked takes pc out of the waiting room, if it is there.
func (a *admission) unqueueLocked(pc *pendingConn) bool {
	for i, q := range a.queue {
		if q == pc {
			a.queue = slices.Delete(a.queue, i, i+1)
			return true
		}
	}
	return false
}

// closeConns closes connections taken out of the count.
func closeConns(conns []*pendingConn) {
	for _, pc := range conns {
		pc.Conn.Close()
	}
}

// stepped records that pc got to p; only the first arrival at each step
// counts, so a client cannot hold its slot by repeating one. (The timer
// may then run early for pc; it finds nothing stalled and is set again.)
func (pc *pendingConn) stepped(p progress) {
	a := &pc.s.adm
	a.mu.Lock()
	if p > pc.progress {
		pc.progress, pc.since = p, time.Now()
	}
	a.mu.Unlock()
}

// pendingOf is the pending connection behind ctx, or nil.
func pendingOf(ctx interface{ Value(any) any }) *pendingConn {
	pc, _ := ctx.Value(pendingKey{}).(*pendingConn)
	return pc
}

// release counts a served connection out (once authenticated, or closed)
// and serves the next waiting one.
func (s *Server) release(pc *pendingConn) {
	a := &s.adm
	a.mu.Lock()
	if _, ok := a.serving[pc]; !ok {
		a.mu.Unlock()
		return
	}
	delete(a.serving, pc)
	drop := s.makeRoomLocked(time.Now())
	a.mu.Unlock()
	closeConns(drop)
}

// closePending closes every connection not yet authenticated, waiting or
// served, and refuses new ones: the library's Close only closes
// authenticated ones.
func (s *Server) closePending() {
	a := &s.adm
	a.mu.Lock()
	a.closed = true
	conns := make([]*pendingConn, 0, len(a.serving))
	for pc := range a.serving {
		conns = append(conns, pc)
	}
	for _, pc := range a.queue {
		pc.turn <- false
	}
	a.queue = nil
	if a.timer != nil {
		a.timer.Stop()
	}
	a.mu.Unlock()
	closeConns(conns)
}

// authenticated is called once the client's key is verified: the
// connection stops counting, and its deadline becomes the idle timeout
// (the read already waiting would otherwise still end at the handshake
// deadline; later reads and writes set their own).
func (pc *pendingConn) authenticated() {
	pc.mu.Lock()
	pc.deadline = time.Time{}
	pc.Conn.SetDeadline(time.Now().Add(pc.s.cfg.IdleTimeout))
	pc.mu.Unlock()
	pc.s.release(pc)
}

// Read follows the client's first bytes: its steps, and its
// identification line, after which the connection has until the
// handshake deadline. (The library reads that line a byte at a time, so
// nothing after it is read under the banner deadline.)
func (pc *pendingConn) Read(p []byte) (int, error) {
	n, err := pc.Conn.Read(p)
	if n > 0 && !pc.opening.done() {
		before := pc.opening.step
		after := pc.opening.feed(p[:n])
		if before == connected && after > connected {
			pc.mu.Lock()
			if !pc.deadline.IsZero() {
				pc.deadline = pc.handshake
				pc.Conn.SetDeadline(pc.handshake)
			}
			pc.mu.Unlock()
		}
		if after > before {
			pc.stepped(after)
		}
	}
	return n, err
}

func (pc *pendingConn) capped(t time.Time) time.Time {
	if !pc.deadline.IsZero() && (t.IsZero() || t.After(pc.deadline)) {
		return pc.deadline
	}
	return t
}

func (pc *pendingConn) SetDeadline(t time.Time) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.Conn.SetDeadline(pc.capped(t))
}

func (pc *pendingConn) SetReadDeadline(t time.Time) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.Conn.SetReadDeadline(pc.capped(t))
}

func (pc *pendingConn) SetWriteDeadline(t time.Time) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.Conn.SetWriteDeadline(pc.capped(t))
}

func (pc *pendingConn) Close() error {
	err := pc.Conn.Close()
	pc.s.release(pc)
	return err
}
