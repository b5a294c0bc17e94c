package sshserver

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/ui"
)

// waitLimit bounds every wait for output; nothing sleeps to synchronise.
const waitLimit = 20 * time.Second

// testGrace and testKillAfter are the tests' ShutdownGrace and KillAfter,
// the waits a shutdown and a stuck program cost, short so the suite runs
// fast. A short KillAfter also kills programs under the race detector's
// load, which is how the race in Bubble Tea's Kill (it closed the input
// reader under its read loop; patched in third_party/bubbletea) was found.
const (
	testGrace     = 250 * time.Millisecond
	testKillAfter = 250 * time.Millisecond
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newSigner(t testing.TB) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func authorizedLine(s gossh.Signer) string {
	return string(gossh.MarshalAuthorizedKey(s.PublicKey()))
}

// world is a pi-tui home (HOME, agent dir, data dir, one host) with a
// server over it and one authorised client key.
type world struct {
	t        testing.TB
	home     string
	host     *host.Host
	env      map[string]string
	user     gossh.Signer
	keysPath string
	log      *syncBuffer
	warn     *syncBuffer
	srv      *Server
	addr     string
	stop     func() error
}

func newWorld(t testing.TB) *world {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pl := paths.Places{Home: home, AgentDir: filepath.Join(home, ".pi", "agent"), DataDir: filepath.Join(home, "data")}
	// One host, its runtime manager too, for every session, as pi-tui
	// serve has.
	env := map[string]string{}
	h, err := host.Open(context.Background(), pl, host.Options{Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	w := &world{t: t, home: home, host: h, env: env, user: newSigner(t), log: &syncBuffer{}, warn: &syncBuffer{}}
	w.keysPath = filepath.Join(home, ".ssh", "authorized_keys")
	w.writeKeys(authorizedLine(w.user))
	return w
}

func (w *world) writeKeys(body string) {
	w.t.Helper()
	os.MkdirAll(filepath.Dir(w.keysPath), 0o700)
	if err := os.WriteFile(w.keysPath, []byte(body), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) addProject(name string) string {
	w.t.Helper()
	dir := filepath.Join(w.home, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	if _, _, err := w.host.Projects.Add(context.Background(), dir, name, true); err != nil {
		w.t.Fatal(err)
	}
	return dir
}

func (w *world) config() Config {
	return Config{
		Listen:             "127.0.0.1:0",
		HostKeyPath:        filepath.Join(w.home, "data", "ssh_host_ed25519"),
		AuthorizedKeysPath: w.keysPath,
		Log:                w.log,
		Warn:               w.warn,
		ShutdownGrace:      testGrace,
		KillAfter:          testKillAfter,
		NewModel: func(sess ssh.Session, r *lipgloss.Renderer, exec ExecFunc) tea.Model {
			return ui.New(ui.Options{Host: w.host, Context: sess.Context(), Renderer: r, Env: func(k string) string { return w.env[k] }, Exec: exec})
		},
	}
}

// start starts a server; tweak adjusts the configuration first.
func (w *world) start(tweak func(*Config)) *world {
	w.t.Helper()
	cfg := w.config()
	if tweak != nil {
		tweak(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	var once sync.Once
	var serveErr error
	w.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case serveErr = <-done:
			case <-time.After(waitLimit):
				serveErr = context.DeadlineExceeded
			}
		})
		return serveErr
	}
	w.t.Cleanup(func() { w.stop() })
	w.srv, w.addr = srv, srv.Addr().String()
	return w
}

func (w *world) dial(auth ...gossh.AuthMethod) (*gossh.Client, error) {
	if len(auth) == 0 {
		auth = []gossh.AuthMethod{gossh.PublicKeys(w.user)}
	}
	c, err := gossh.Dial("tcp", w.addr, &gossh.ClientConfig{
		User:            "alice",
		Auth:            auth,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         waitLimit,
	})
	if err == nil {
		w.t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// term is one interactive session as a client sees it.
type term struct {
	t      testing.TB
	sess   *gossh.Session
	in     io.Writer
	mu     sync.Mutex
	out    []byte
	mark   int
	wake   chan struct{} // closed and replaced on every write
	closed bool
	exit   chan error
}

// openTerm opens a session with a PTY of cols×rows and TERM termName,
// with env sent first, and starts the shell.
func (w *world) openTerm(cols, rows int, termName string, env map[string]string) *term {
	w.t.Helper()
	c, err := w.dial()
	if err != nil {
		w.t.Fatal(err)
	}
	return openTermOn(w.t, c, cols, rows, termName, env, true)
}

func openTermOn(t testing.TB, c *gossh.Client, cols, rows int, termName string, env map[string]string, pty bool) *term {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		if err := sess.Setenv(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if pty {
		if err := sess.RequestPty(termName, rows, cols, gossh.TerminalModes{gossh.ECHO: 1, gossh.TTY_OP_ISPEED: 38400, gossh.TTY_OP_OSPEED: 38400}); err != nil {
			t.Fatal(err)
		}
	}
	tm := &term{t: t, sess: sess, wake: make(chan struct{}), exit: make(chan error, 1)}
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	tm.in = in
	stdout, _ := sess.StdoutPipe()
	stderr, _ := sess.StderrPipe()
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); tm.pump(stdout, true) }()
	go func() { defer readers.Done(); tm.pump(stderr, false) }()
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := sess.Wait()
		readers.Wait()
		tm.mu.Lock()
		tm.closed = true
		close(tm.wake)
		tm.mu.Unlock()
		tm.exit <- err
	}()
	t.Cleanup(func() { sess.Close() })
	return tm
}

// pump collects output and answers the renderer's terminal queries
// (background colour, device attributes) as a terminal would.
func (tm *term) pump(r io.Reader, answer bool) {
	buf := make([]byte, 32*1024)
	answered := false
	for {
		n, err := r.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if answer && !answered && bytes.Contains(chunk, []byte("\x1b[c")) {
				answered = true
				tm.in.Write([]byte("\x1b]11;rgb:1c1c/1c1c/1c1c\x07\x1b[?62;22c"))
			}
			tm.mu.Lock()
			tm.out = append(tm.out, chunk...)
			if !tm.closed {
				close(tm.wake)
				tm.wake = make(chan struct{})
			}
			tm.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// send writes keys after moving the mark: later waits only look at
// output produced after this.
func (tm *term) send(keys string) {
	tm.t.Helper()
	tm.mu.Lock()
	tm.mark = len(tm.out)
	tm.mu.Unlock()
	if _, err := io.WriteString(tm.in, keys); err != nil {
		tm.t.Fatalf("send %q: %v", keys, err)
	}
}

// waitAny waits until the text since the mark (escape sequences removed)
// contains one of want, and returns which.
func (tm *term) waitAny(want ...string) (string, error) {
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		tm.mu.Lock()
		text := ansi.Strip(string(tm.out[tm.mark:]))
		wake, closed := tm.wake, tm.closed
		tm.mu.Unlock()
		for _, w := range want {
			if strings.Contains(text, w) {
				return w, nil
			}
		}
		if closed {
			return "", &waitError{want: want, text: text, why: "the session ended"}
		}
		select {
		case <-wake:
		case <-deadline.C:
			return "", &waitError{want: want, text: text, why: "timed out"}
		}
	}
}

type waitError struct {
	want []string
	text string
	why  string
}

func (e *waitError) Error() string {
	tail := e.text
	if len(tail) > 3000 {
		tail = tail[len(tail)-3000:]
	}
	return e.why + " waiting for " + strings.Join(e.want, " | ") + "; output since the mark:\n" + tail
}

// waitFor waits for every one of want (each may appear in a different
// frame).
func (tm *term) waitFor(want ...string) {
	tm.t.Helper()
	for _, w := range want {
		if _, err := tm.waitAny(w); err != nil {
			tm.t.Fatal(err)
		}
	}
}

// key sends keys and waits for their effect.
func (tm *term) key(keys string, want ...string) {
	tm.t.Helper()
	tm.send(keys)
	tm.waitFor(want...)
}

// raw is all output so far, escape sequences included.
func (tm *term) raw() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return string(tm.out)
}

// ended waits for the session to end and returns its exit error.
func (tm *term) ended() error {
	tm.t.Helper()
	select {
	case err := <-tm.exit:
		return err
	case <-time.After(waitLimit):
		tm.t.Fatal("the session did not end")
		return nil
	}
}

const (
	keyEnter = "\r"
	keyEsc   = "\x1b"
	keyCtrlS = "\x13"
	keyCtrlE = "\x05"
)
