package sshserver

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// Tests of clients that stop reading their output, then vanish or not.

// clientWindow is how much session data an x/crypto/ssh client accepts
// before it must read: once the server has sent this much to a client
// that does not read, the server's next write blocks.
const clientWindow = 2 << 20

// floodModel redraws a whole screen of new text 100 times a second, so a
// client that does not read falls behind at once.
type floodModel struct{ w, h, frame int }

type floodTick struct{}

func floodNext() tea.Cmd {
	return tea.Tick(10*time.Millisecond, func(time.Time) tea.Msg { return floodTick{} })
}

func (m *floodModel) Init() tea.Cmd { return floodNext() }

func (m *floodModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case floodTick:
		m.frame++
		return m, floodNext()
	}
	return m, nil
}

func (m *floodModel) View() string {
	head := strconv.Itoa(m.frame) + " "
	fill := strings.Repeat("x", max(0, m.w-1-len(head)))
	var b strings.Builder
	for i := range m.h {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(head) // every line changes every frame
		b.WriteString(fill)
	}
	return b.String()
}

// withFlood gives sessions of the user "flood" a floodModel and everyone
// else the shell.
func withFlood(c *Config) {
	shell := c.NewModel
	c.NewModel = func(sess ssh.Session, r *lipgloss.Renderer, exec ExecFunc) tea.Model {
		if sess.User() == "flood" {
			return &floodModel{}
		}
		return shell(sess, r, exec)
	}
}

// waitActive waits until exactly n sessions are admitted (and, for 0, no
// program runs).
func (w *world) waitActive(n int) {
	w.t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		active, running, changed := w.srv.watch()
		if active == n && (n > 0 || running == 0) {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			w.t.Fatalf("%d sessions admitted (%d programs running), want %d", active, running, n)
		}
	}
}

// countingConn counts what the client receives and closes full once
// clientWindow bytes have arrived.
type countingConn struct {
	net.Conn
	n    atomic.Int64
	once sync.Once
	full chan struct{}
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.n.Add(int64(n)) >= clientWindow {
		c.once.Do(func() { close(c.full) })
	}
	return n, err
}

// stuckClient is an SSH client with a session and a PTY that never reads
// its session's output.
type stuckClient struct {
	conn   *countingConn
	client *gossh.Client
	sess   *gossh.Session
}

// stuck opens a session for user that reads nothing; with answer, it first
// answers the terminal query, so its program starts at once rather than
// after the query's timeout (2 s).
func (w *world) stuck(user string, cols, rows int, answer bool) *stuckClient {
	w.t.Helper()
	raw, err := net.Dial("tcp", w.addr)
	if err != nil {
		w.t.Fatal(err)
	}
	conn := &countingConn{Conn: raw, full: make(chan struct{})}
	w.t.Cleanup(func() { conn.Close() })
	cc, chans, reqs, err := gossh.NewClientConn(conn, w.addr, &gossh.ClientConfig{
		User: user, Auth: []gossh.AuthMethod{gossh.PublicKeys(w.user)}, HostKeyCallback: gossh.InsecureIgnoreHostKey(),
	})
	if err != nil {
		w.t.Fatal(err)
	}
	client := gossh.NewClient(cc, chans, reqs)
	sess, err := client.NewSession()
	if err != nil {
		w.t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", rows, cols, gossh.TerminalModes{}); err != nil {
		w.t.Fatal(err)
	}
	// Pipes that are read only until the terminal query is answered:
	// x/crypto/ssh would otherwise drain the output in the background.
	// Stdin stays open, as a terminal's does.
	stdin, err := sess.StdinPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := sess.StderrPipe(); err != nil {
		w.t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		w.t.Fatal(err)
	}
	if answer {
		answerQuery(stdout, stdin)
	}
	return &stuckClient{conn: conn, client: client, sess: sess}
}

// answerQuery reads out until the renderer's terminal query (background
// colour, device attributes) and answers it as a terminal would, so the
// session does not wait for the query to time out; then it reads nothing
// more. It does not wait: the caller's own waits bound it.
func answerQuery(out io.Reader, in io.Writer) {
	go func() {
		var seen []byte
		buf := make([]byte, 4096)
		for !bytes.Contains(seen, []byte("\x1b[c")) {
			n, err := out.Read(buf)
			if err != nil {
				return
			}
			seen = append(seen, buf[:n]...)
		}
		io.WriteString(in, "\x1b]11;rgb:1c1c/1c1c/1c1c\x07\x1b[?62;22c")
	}()
}

// windowFull waits until the server has filled the client's window: from
// here on, the server's writes to this client block.
func (sc *stuckClient) windowFull(t testing.TB) {
	t.Helper()
	select {
	case <-sc.conn.full:
	case <-time.After(waitLimit):
		t.Fatalf("the server sent only %d bytes", sc.conn.n.Load())
	}
}

// A client that stops reading and then drops its TCP connection leaves
// nothing behind: its session slot is freed and the server still stops.
func TestStuckClientThatDisconnectsFreesItsSession(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(func(c *Config) { withFlood(c); c.WriteTimeout = time.Hour }) // only the disconnect can end it
	sc := w.stuck("flood", 1000, 400, true)
	sc.windowFull(t)
	sc.conn.Close()
	w.waitActive(0)
	if err := w.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// As many stuck clients as there are session slots come and go; the next
// client still gets the shell.
func TestStuckClientsDoNotFillTheSessionCap(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(func(c *Config) { withFlood(c); c.WriteTimeout = time.Hour })
	var clients []*stuckClient
	for range DefaultMaxSessions {
		clients = append(clients, w.stuck("flood", 300, 100, false)) // gone before their programs start
	}
	w.waitActive(DefaultMaxSessions)
	for _, sc := range clients {
		sc.conn.Close()
	}
	w.waitActive(0)
	tm := w.openTerm(100, 30, "xterm", nil)
	tm.waitFor("[1 Projects]")
	if err := w.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// A client that stays connected but reads nothing is disconnected once a
// write to it has waited WriteTimeout.
func TestClientThatStopsReadingIsDisconnected(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(func(c *Config) { withFlood(c); c.WriteTimeout = 200 * time.Millisecond })
	sc := w.stuck("flood", 1000, 400, true)
	sc.windowFull(t)
	ended := make(chan error, 1)
	go func() { ended <- sc.client.Wait() }()
	select {
	case <-ended:
	case <-time.After(waitLimit):
		t.Fatal("the server kept the connection of a client that reads nothing")
	}
	w.waitActive(0)
	if log := w.log.String(); !strings.Contains(log, "session-error write-timeout") {
		t.Errorf("the timeout is not logged:\n%s", log)
	}
}

// Shutdown does not wait for a client that reads nothing: the server
// stops, the session's program ends and the client is disconnected.
func TestShutdownWithStuckClient(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(func(c *Config) { withFlood(c); c.WriteTimeout = time.Hour })
	sc := w.stuck("flood", 1000, 400, true)
	sc.windowFull(t)
	if err := w.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	w.waitActive(0)
	ended := make(chan error, 1)
	go func() { ended <- sc.client.Wait() }()
	select {
	case <-ended:
	case <-time.After(waitLimit):
		t.Fatal("the stuck client is still connected after shutdown")
	}
}
