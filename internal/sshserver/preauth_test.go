package sshserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// rawConn opens a TCP connection that sends nothing, and reads the
// server's version line unless the server closes it first.
func (w *world) rawConn() (net.Conn, string, error) {
	w.t.Helper()
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(waitLimit)) // a bound, not a timing
	line, err := bufio.NewReader(c).ReadString('\n')
	return c, line, err
}

// closedByServer waits until the server closes c (EOF or reset); a
// timeout of the test's own bound is a failure.
func closedByServer(c net.Conn) error {
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	return nil
}

// Connections that never authenticate are capped: beyond the cap they are
// closed at once, while an authenticating client still gets in and no
// longer counts once it has.
func TestUnauthenticatedConnectionCap(t *testing.T) {
	w := newWorld(t)
	w.start(func(c *Config) { c.MaxUnauthenticated = 3 })
	var idle []net.Conn
	for range 2 {
		c, line, err := w.rawConn()
		if !strings.HasPrefix(line, "SSH-2.0-") {
			t.Fatalf("idle connection got %q, %v", line, err)
		}
		idle = append(idle, c)
	}
	// The third slot: a real client takes it and gives it back once
	// authenticated.
	w.openTerm(100, 30, "xterm", nil).waitFor("[1 Projects]")
	c, line, err := w.rawConn()
	if !strings.HasPrefix(line, "SSH-2.0-") {
		t.Fatalf("the third idle connection got %q, %v", line, err)
	}
	idle = append(idle, c)
	for range 2 {
		if _, line, err := w.rawConn(); line != "" || err == nil {
			t.Fatalf("a connection beyond the cap got %q, %v", line, err)
		}
	}
	if n := strings.Count(w.log.String(), "refused too-many-unauthenticated"); n != 1 {
		t.Errorf("%d log lines for refused connections, want 1 while the cap stays reached:\n%s", n, w.log.String())
	}
	if err := w.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	for i, c := range idle {
		if err := closedByServer(c); err != nil {
			t.Errorf("idle connection %d outlived the server: %v", i, err)
		}
	}
}

// A connection that does not authenticate within HandshakeTimeout is
// closed; one that did is not.
func TestHandshakeTimeout(t *testing.T) {
	w := newWorld(t)
	w.start(func(c *Config) { c.HandshakeTimeout = 2 * time.Second })
	client, err := w.dial()
	if err != nil {
		t.Fatal(err)
	}
	idle, _, err := w.rawConn()
	if err != nil {
		t.Fatal(err)
	}
	if err := closedByServer(idle); err != nil {
		t.Fatalf("the idle connection was not closed: %v", err)
	}
	// The client connected before the idle one: its own handshake deadline
	// has passed too, and it still works.
	openTermOn(t, client, 100, 30, "xterm", nil, true).waitFor("[1 Projects]")
}
