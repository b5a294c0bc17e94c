package sshserver

import (
	"net"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
)

// Connections that have not authenticated yet cost a descriptor and a
// goroutine each, and anyone who can reach the port can open them. So
// there are at most Config.MaxUnauthenticated of them (the next one is
// closed at once, as OpenSSH's MaxStartups does), and each has
// Config.HandshakeTimeout to authenticate. The count and the deadline end
// when the client's key is verified, or when the connection closes.

type pendingKey struct{}

// pendingConn is a connection that has not authenticated yet. Until it
// has, every deadline the library sets on it (its idle timeout) is capped
// at the handshake deadline.
type pendingConn struct {
	net.Conn
	s *Server

	mu       sync.Mutex
	deadline time.Time // zero once authenticated
}

// admitConn is the library's ConnCallback: it counts a new connection in,
// or closes it (by returning nil) when the cap is reached or the server is
// shutting down.
func (s *Server) admitConn(ctx ssh.Context, c net.Conn) net.Conn {
	s.pendMu.Lock()
	if s.pendClosed || len(s.pending) >= s.cfg.MaxUnauthenticated {
		// One log line per episode, not per connection: a flood must not
		// fill the disk.
		first := !s.pendClosed && !s.pendFull
		s.pendFull = true
		s.pendMu.Unlock()
		if first {
			s.logConn("-", "-", c.RemoteAddr(), "refused too-many-unauthenticated")
		}
		return nil
	}
	pc := &pendingConn{Conn: c, s: s, deadline: time.Now().Add(s.cfg.HandshakeTimeout)}
	s.pending[pc] = struct{}{}
	s.pendMu.Unlock()
	c.SetDeadline(pc.deadline)
	ctx.SetValue(pendingKey{}, pc)
	return pc
}

// release counts a connection out (once authenticated, or closed).
func (s *Server) release(pc *pendingConn) {
	s.pendMu.Lock()
	delete(s.pending, pc)
	if len(s.pending) < s.cfg.MaxUnauthenticated {
		s.pendFull = false
	}
	s.pendMu.Unlock()
}

// closePending closes every connection not yet authenticated and refuses
// new ones: the library's Close only closes authenticated ones.
func (s *Server) closePending() {
	s.pendMu.Lock()
	s.pendClosed = true
	conns := make([]net.Conn, 0, len(s.pending))
	for pc := range s.pending {
		conns = append(conns, pc.Conn)
	}
	s.pendMu.Unlock()
	for _, c := range conns {
		c.Close()
	}
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
