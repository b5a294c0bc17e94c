package sshserver

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// dialOnly opens a TCP connection and reads nothing.
func (w *world) dialOnly() net.Conn {
	w.t.Helper()
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(waitLimit)) // a bound, not a timing
	return c
}

// rawConn opens a TCP connection that sends banner (maybe nothing), and
// reads the server's version line unless the server closes it first.
func (w *world) rawConn(banner string) (net.Conn, string, error) {
	w.t.Helper()
	c := w.dialOnly()
	if banner != "" {
		io.WriteString(c, banner)
	}
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

// heldClient is an SSH client of the world's key held at one step of its
// login until let go: after its identification line, or when asked to
// sign with its key (as while someone types the key's passphrase).
type heldClient struct {
	w      *world
	br     *bufio.Reader
	gate   chan struct{} // closed to let the client go on
	asked  chan struct{} // closed once the client is asked to sign
	result chan error
	client *gossh.Client
}

// gatedConn holds every read until gate is closed.
type gatedConn struct {
	net.Conn
	r    io.Reader
	gate <-chan struct{}
}

func (g *gatedConn) Read(p []byte) (int, error) {
	<-g.gate
	return g.r.Read(p)
}

// heldSigner holds Sign until gate is closed.
type heldSigner struct {
	gossh.Signer
	once  sync.Once
	asked chan struct{}
	gate  <-chan struct{}
}

func (h *heldSigner) Sign(r io.Reader, data []byte) (*gossh.Signature, error) {
	h.once.Do(func() { close(h.asked) })
	<-h.gate
	return h.Signer.Sign(r, data)
}

// holdClient starts a client held after its identification line
// (atSign false) or at signing (atSign true), and returns once it is
// held: the server has answered the identification line and begun the
// key exchange, or has accepted the key the client offers.
func (w *world) holdClient(atSign bool) *heldClient {
	w.t.Helper()
	c := w.dialOnly()
	h := &heldClient{w: w, br: bufio.NewReader(c), gate: make(chan struct{}), asked: make(chan struct{}), result: make(chan error, 1)}
	open := make(chan struct{})
	close(open)
	readGate, signGate := h.gate, open
	if atSign {
		readGate, signGate = open, h.gate
	}
	signer := &heldSigner{Signer: w.user, asked: h.asked, gate: signGate}
	conn := &gatedConn{Conn: c, r: h.br, gate: readGate}
	go func() {
		cc, chans, reqs, err := gossh.NewClientConn(conn, w.addr, &gossh.ClientConfig{
			User: "alice", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)}, HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		})
		if err == nil {
			c.SetDeadline(time.Time{})
			h.client = gossh.NewClient(cc, chans, reqs)
		}
		h.result <- err
	}()
	if atSign {
		select {
		case <-h.asked:
		case err := <-h.result:
			w.t.Fatalf("the client was not asked to sign: %v", err)
		}
		return h
	}
	// The client has sent its identification line and waits for the
	// server's; peek until the server has sent its line and more (its
	// key exchange), which it does only after reading the client's.
	for n := 1; ; n++ {
		b, err := h.br.Peek(n)
		if err != nil {
			w.t.Fatalf("the server closed a client that sent its identification line: %v", err)
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			return h
		}
	}
}

// finish lets the client go on and returns its login's outcome.
func (h *heldClient) finish() error {
	close(h.gate)
	err := <-h.result
	if err == nil {
		h.w.t.Cleanup(func() { h.client.Close() })
	}
	return err
}

// testStall is the flood tests' StallTimeout: the pace of a flood, and
// longer than any step of a real client on a busy test machine. It is the
// product's own default: at 250 ms a login starved of CPU by the rest of
// the suite stalled long enough, once in a while, to be closed itself.
const testStall = time.Second

// When the unauthenticated slots are full, a newcomer waits unanswered
// until a served connection has stalled, which is then closed.
func TestNewcomerWaitsForAStalledConnection(t *testing.T) {
	w := newWorld(t)
	w.start(func(c *Config) {
		c.MaxUnauthenticated = 1
		c.StallTimeout = 100 * time.Millisecond
		c.BannerTimeout, c.HandshakeTimeout = time.Hour, time.Hour
	})
	idle, line, err := w.rawConn("")
	if !strings.HasPrefix(line, "SSH-2.0-") {
		t.Fatalf("idle connection got %q, %v", line, err)
	}
	if _, line, err := w.rawConn(""); !strings.HasPrefix(line, "SSH-2.0-") {
		t.Fatalf("the newcomer got %q, %v", line, err)
	}
	if err := closedByServer(idle); err != nil {
		t.Fatalf("the stalled connection was not closed: %v", err)
	}
}

// Of the stalled connections the least advanced is closed first, so one
// that sent its identification line outlives idle ones that came after
// it; a real client waits its turn too, and once authenticated no longer
// counts. (Every served connection is stalled at once here.)
func TestLeastAdvancedIsClosedFirst(t *testing.T) {
	w := newWorld(t)
	w.start(func(c *Config) {
		c.MaxUnauthenticated = 3
		c.StallTimeout = time.Nanosecond
		c.BannerTimeout, c.HandshakeTimeout = time.Hour, time.Hour
	})
	early := w.holdClient(false)
	var idle []net.Conn
	for range 2 {
		c, line, err := w.rawConn("")
		if !strings.HasPrefix(line, "SSH-2.0-") {
			t.Fatalf("idle connection got %q, %v", line, err)
		}
		idle = append(idle, c)
	}
	// The slots are full. Each newcomer is answered in place of the
	// oldest idle connection.
	for i := range 2 {
		c, line, err := w.rawConn("")
		if !strings.HasPrefix(line, "SSH-2.0-") {
			t.Fatalf("newcomer %d got %q, %v", i, line, err)
		}
		if err := closedByServer(idle[0]); err != nil {
			t.Fatalf("newcomer %d: the oldest idle connection was not closed: %v", i, err)
		}
		idle = append(idle[1:], c)
	}
	w.openTerm(100, 30, "xterm", nil).waitFor("[1 Projects]")
	if err := closedByServer(idle[0]); err != nil {
		t.Fatalf("the oldest idle connection was not closed for the client: %v", err)
	}
	idle = idle[1:]
	if err := early.finish(); err != nil {
		t.Fatalf("the identified connection was closed before idle ones: %v", err)
	}
	if n := strings.Count(w.log.String(), "waiting too-many-unauthenticated"); n != 1 {
		t.Errorf("%d log lines for waiting connections, want 1 while the slots stay full:\n%s", n, w.log.String())
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

// Beyond the waiting room a connection is closed at once; at shutdown the
// waiting ones are closed too.
func TestWaitingRoomIsBounded(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(func(c *Config) {
		c.MaxUnauthenticated = 1
		c.StallTimeout, c.BannerTimeout, c.HandshakeTimeout = time.Hour, time.Hour, time.Hour
	})
	const n = 1 + waitingPerSlot + 1 // one served, a full waiting room, one more
	closed := make(chan struct{}, n)
	for range n {
		c := w.dialOnly()
		go func() {
			if closedByServer(c) == nil {
				closed <- struct{}{}
			}
		}()
	}
	select {
	case <-closed:
	case <-time.After(waitLimit):
		t.Fatal("no connection was refused")
	}
	if lines := strings.Count(w.log.String(), "refused too-many-unauthenticated"); lines != 1 {
		t.Errorf("%d log lines for refused connections, want 1:\n%s", lines, w.log.String())
	}
	if err := w.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	for range n - 1 {
		select {
		case <-closed:
		case <-time.After(waitLimit):
			t.Fatal("a connection outlived the server")
		}
	}
}

// A connection that sends no identification line within BannerTimeout is
// closed; one that sent it before then has the rest of HandshakeTimeout.
func TestBannerTimeout(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(func(c *Config) { c.BannerTimeout = 300 * time.Millisecond; c.HandshakeTimeout = waitLimit })
	client := w.holdClient(false)
	idle, _, err := w.rawConn("")
	if err != nil {
		t.Fatal(err)
	}
	if err := closedByServer(idle); err != nil {
		t.Fatalf("the silent connection was not closed: %v", err)
	}
	// The client connected before the silent one, so a banner deadline on
	// it would have passed too.
	if err := client.finish(); err != nil {
		t.Fatalf("the client that had sent its identification line was closed: %v", err)
	}
	openTermOn(t, client.client, 100, 30, "xterm", nil, true).waitFor("[1 Projects]")
}

// A connection that sent its identification line but does not
// authenticate within HandshakeTimeout is closed, and so is one that
// waited for a slot all that time; one that authenticated is not.
func TestHandshakeTimeout(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(func(c *Config) {
		c.HandshakeTimeout = time.Second
		c.MaxUnauthenticated = 1
		c.BannerTimeout, c.StallTimeout = waitLimit, waitLimit
	})
	client, err := w.dial()
	if err != nil {
		t.Fatal(err)
	}
	stalled, _, err := w.rawConn("SSH-2.0-stall\r\n")
	if err != nil {
		t.Fatal(err)
	}
	waiting := w.dialOnly()
	if err := closedByServer(stalled); err != nil {
		t.Fatalf("the stalled connection was not closed: %v", err)
	}
	if err := closedByServer(waiting); err != nil {
		t.Fatalf("the waiting connection was not closed: %v", err)
	}
	// The client connected before them: its own handshake deadline has
	// passed too, and it still works.
	openTermOn(t, client, 100, 30, "xterm", nil, true).waitFor("[1 Projects]")
}

// floodBudget bounds the connections one flood opens.
const floodBudget = 20000

// An authorised user logs in and gets a session while 300 connections
// that never authenticate keep reopening against the default cap of 64.
// The banner and handshake timeouts are out of reach, so only closing
// stalled connections makes room.
func TestLoginDuringFlood(t *testing.T) {
	t.Parallel()
	for _, kind := range []floodKind{floodIdle, floodBanner, floodMixed} {
		t.Run(kind.String(), func(t *testing.T) {
			// The three floods are paced by the stall timeout, not by the
			// CPU (each has at most 64 connections in play at a time), so
			// they share the machine.
			t.Parallel()
			w := newWorld(t)
			w.start(func(c *Config) { c.StallTimeout, c.BannerTimeout, c.HandshakeTimeout = testStall, time.Hour, time.Hour })
			f := startFlood(t, w.addr, 300, kind, floodBudget, waitLimit)
			f.waitDropped(t, 1) // the slots are full, and stalled ones are closed
			w.openTerm(100, 30, "xterm", nil).waitFor("[1 Projects]")
			if ended, err := f.state(); ended || err != nil {
				t.Fatalf("the flood stopped before the login (%v): the test shows nothing", err)
			}
			t.Logf("%d flood connections opened, %d dropped", f.opened.Load(), f.dropped.Load())
		})
	}
}

// A client whose key the server accepted, waiting for its user to type
// the passphrase, is not dropped by a flood however long it lasts.
func TestFloodSparesClientTypingPassphrase(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(func(c *Config) {
		c.MaxUnauthenticated = 8
		c.StallTimeout, c.BannerTimeout, c.HandshakeTimeout = 50*time.Millisecond, time.Hour, time.Hour
	})
	typing := w.holdClient(true)
	f := startFlood(t, w.addr, 50, floodMixed, floodBudget, waitLimit)
	f.waitDropped(t, 100) // every other slot has turned over many times
	if err := typing.finish(); err != nil {
		t.Fatalf("the client typing its passphrase was dropped: %v", err)
	}
	openTermOn(t, typing.client, 100, 30, "xterm", nil, true).waitFor("[1 Projects]")
	if ended, err := f.state(); ended || err != nil {
		t.Fatalf("the flood stopped early (%v)", err)
	}
}
