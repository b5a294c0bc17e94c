package sshserver

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	bm "github.com/charmbracelet/wish/bubbletea"
	"github.com/muesli/termenv"
	gossh "golang.org/x/crypto/ssh"
)

// teaMiddleware runs one Bubble Tea program per session. It is wish's
// bubbletea middleware in spirit (and uses its MakeRenderer helper), with
// these changes: sessions without a PTY, over the cap or arriving during
// shutdown get a one-line message; window changes come from
// sessionChannel rather than from the session's window channel, which the
// PTY allocator also reads (two readers of one channel would each get only
// some of the resizes); and a program whose client is gone or stuck is
// made to end (supervise).
func (s *Server) teaMiddleware(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		defer next(sess)
		st, _ := sess.Context().Value(winKey).(*sessionState)
		if st == nil {
			st = newSessionState() // not opened through sessionChannel
		}
		if !st.acquire() {
			return // the client already closed the session
		}
		defer st.release()
		pty, _, ok := sess.Pty()
		if !ok {
			s.logSession(sess, "refused no-pty")
			say(sess, "pi-tui needs an interactive terminal: connect with ssh -t")
			return
		}
		if reason, msg, ok := s.admit(); !ok {
			s.logSession(sess, "refused "+reason)
			say(sess, msg)
			return
		}
		defer s.leave()

		r := bm.MakeRenderer(sess)
		if env := sshEnv(sess); env.Getenv("NO_COLOR") != "" || pty.Term == "" || pty.Term == "dumb" {
			r.SetColorProfile(termenv.Ascii)
		}
		// gone ends when the client can no longer be reached: its
		// connection closed (a write to it that timed out closes it too)
		// or, earlier, its session channel closed (a client may close one
		// session and keep the connection). ctx, for $EDITOR, ends with
		// gone or with the session.
		gone, markGone := context.WithCancel(sess.Context())
		defer markGone()
		stop := context.AfterFunc(st.ctx, markGone)
		defer stop()
		ctx, cancel := context.WithCancel(gone)
		defer cancel()
		in, err := privateInput(pty.Slave)
		if err != nil {
			s.logSession(sess, "refused pty-dup")
			say(sess, "pi-tui could not set up the terminal: "+err.Error())
			return
		}
		m := s.cfg.NewModel(sess, r, execIn(ctx, sess, pty.Term))
		opts := []tea.ProgramOption{
			tea.WithInput(in),
			// The output hides the PTY's descriptor: Bubble Tea would read
			// the window size from it in a goroutine nobody waits for,
			// which races with the library closing the PTY after a short
			// session. The sizes come from the client's requests instead.
			tea.WithOutput(struct{ io.Writer }{pty.Slave}),
			tea.WithAltScreen(),
			tea.WithEnvironment(sess.Environ()),
			tea.WithoutSignalHandler(), // signals belong to the server, not to each session
			// Bubble Tea's maximum: a frame waits at most 8 ms for the
			// ticker instead of 16 (key-to-frame latency; an idle tick
			// writes nothing).
			tea.WithFPS(120),
		}
		p := tea.NewProgram(m, opts...)
		l := &live{quit: make(chan struct{})}
		if !s.track(l) {
			say(sess, "pi-tui is shutting down; try again later")
			return
		}
		defer s.untrack(l)
		s.logSession(sess, "session-start")

		done := make(chan struct{})
		supervised := make(chan struct{})
		go func() {
			defer close(supervised)
			supervise(p, l.quit, gone, pty.Master, done, s.cfg.KillAfter)
		}()
		go func() {
			p.Send(tea.WindowSizeMsg{Width: pty.Window.Width, Height: pty.Window.Height}) // from the (clamped) pty-req
			for {
				select {
				case <-done:
					return
				case <-st.changed:
					cols, rows := st.size()
					p.Send(tea.WindowSizeMsg{Width: cols, Height: rows}) // returns once the program has ended
				}
			}
		}()
		final, err := p.Run()
		close(done)
		<-supervised
		// A model holding shared services (subscriptions, approvals, a
		// running turn) releases them when its client is gone.
		if c, ok := final.(interface{ Close() }); ok {
			c.Close()
		}
		outcome := "session-end"
		switch {
		case st.timedOut():
			outcome = "session-error write-timeout"
		case err != nil:
			outcome = "session-error " + strings.Join(strings.Fields(err.Error()), "_")
		}
		s.logSession(sess, outcome)
	}
}

// supervise ends a program that must end. Asked to (quit closed, at
// shutdown), it asks the program to quit. Once the client is gone it
// discards what the program writes to the terminal (nothing reads the PTY
// any more, and a program blocked writing to it could never quit), asks it
// to quit and kills it if it has not ended within killAfter. It returns
// when done is closed (the program has ended). No step waits on the
// client.
//
// Quit comes first because a quitting program waits for its input reader
// to stop before Run returns and the library closes the PTY that reader
// uses; Kill does not, and is the last resort.
func supervise(p *tea.Program, quit <-chan struct{}, gone context.Context, master *os.File, done <-chan struct{}, killAfter time.Duration) {
	select {
	case <-done:
		return
	case <-gone.Done():
	case <-quit:
		go p.Quit() // Quit returns when the event loop takes it or the program ends
		select {
		case <-done:
			return
		case <-gone.Done():
		}
	}
	if master != nil {
		// Until the library closes the PTY, after the program.
		go io.Copy(io.Discard, master)
	}
	go p.Quit()
	t := time.NewTimer(killAfter)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		p.Kill()
		<-done
	}
}

// live is a running program as the server sees it: quit is closed to ask
// it to end.
type live struct {
	quit chan struct{}
	once sync.Once
}

func (l *live) stop() { l.once.Do(func() { close(l.quit) }) }

// execIn runs cmd in the session's PTY with wish.Command (not
// tea.ExecProcess, which would use the server's own terminal), with the
// client's TERM.
func execIn(ctx context.Context, sess ssh.Session, term string) ExecFunc {
	return func(c *exec.Cmd, done func(error) tea.Msg) tea.Cmd {
		if c.Err != nil {
			err := c.Err
			return func() tea.Msg { return done(err) }
		}
		wc := wish.CommandContext(ctx, sess, c.Path, c.Args[1:]...)
		wc.SetDir(c.Dir)
		env := c.Env
		if env == nil {
			env = os.Environ()
		}
		if term != "" {
			env = append(env, "TERM="+term) // the last value wins
		}
		wc.SetEnv(env)
		return tea.Exec(wc, func(err error) tea.Msg { return done(err) })
	}
}

type sshEnviron []string

func (e sshEnviron) Getenv(k string) string {
	for _, kv := range e {
		if v, ok := strings.CutPrefix(kv, k+"="); ok {
			return v
		}
	}
	return ""
}

func sshEnv(sess ssh.Session) sshEnviron { return sshEnviron(sess.Environ()) }

type winKeyType struct{}

var winKey winKeyType

// sessionState is what sessionChannel shares with the handler of one
// session: the latest window size as the client reported it, and when the
// client closed the channel.
type sessionState struct {
	mu         sync.Mutex
	cols, rows int
	changed    chan struct{} // one pending signal at most: size() has the latest

	// ctx is cancelled when the client has closed the channel. The
	// library closes the session's PTY right after; handlers hold the
	// state (acquire/release) while they use the PTY, and the close waits
	// for them.
	ctx    context.Context
	cancel context.CancelFunc
	gone   bool
	users  sync.WaitGroup

	// stuck is set when a write to the client timed out.
	stuck atomic.Bool
}

func (st *sessionState) timedOut() bool { return st.stuck.Load() }

func newSessionState() *sessionState {
	ctx, cancel := context.WithCancel(context.Background())
	return &sessionState{changed: make(chan struct{}, 1), ctx: ctx, cancel: cancel}
}

func (st *sessionState) acquire() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.gone {
		return false
	}
	st.users.Add(1)
	return true
}

func (st *sessionState) release() { st.users.Done() }

// closed marks the channel closed, stops the handler and waits for it to
// let go of the PTY.
func (st *sessionState) closed() {
	st.mu.Lock()
	st.gone = true
	st.mu.Unlock()
	st.cancel()
	st.users.Wait()
}

func (st *sessionState) size() (int, int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.cols, st.rows
}

// note records a window-change (already clamped, so never 0×0).
func (st *sessionState) note(payload []byte) {
	var win windowPayload
	if err := gossh.Unmarshal(payload, &win); err != nil {
		return
	}
	st.mu.Lock()
	st.cols, st.rows = int(win.Cols), int(win.Rows)
	st.mu.Unlock()
	select {
	case st.changed <- struct{}{}:
	default:
	}
}

// sessionChannel is ssh.DefaultSessionHandler with the session's channel
// wrapped: writes to the client time out (guardedChannel), and its
// requests pass through a watcher that clamps window sizes, notes every
// window-change (the PTY still gets every resize from the library, and the
// program gets every resize from the state), and when the client closes
// the channel stops the handler before the library closes the PTY under
// it. The state reaches the handler through the session's context.
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	st := newSessionState()
	defer st.cancel()
	stuck := func() {
		st.stuck.Store(true)
		conn.Close()
	}
	wc := watchedChannel{NewChannel: nc, st: st, timeout: s.cfg.WriteTimeout, stuck: stuck}
	ssh.DefaultSessionHandler(srv, conn, wc, sessionContext{Context: ctx, st: st})
}

type sessionContext struct {
	ssh.Context
	st *sessionState
}

func (c sessionContext) Value(k any) any {
	if k == any(winKey) {
		return c.st
	}
	return c.Context.Value(k)
}

type watchedChannel struct {
	gossh.NewChannel
	st      *sessionState
	timeout time.Duration
	stuck   func()
}

func (c watchedChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := c.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go func() {
		defer close(out)
		for r := range reqs {
			switch r.Type {
			case "pty-req":
				r.Payload = clampPtyRequest(r.Payload)
			case "window-change":
				r.Payload = clampWindowChange(r.Payload)
				c.st.note(r.Payload)
			}
			out <- r
		}
		c.st.closed()
	}()
	return guardedChannel{Channel: ch, timeout: c.timeout, stuck: c.stuck}, out, nil
}

// guardedChannel is a session channel whose writes to the client give up.
// A client that stops reading fills its SSH window (or its TCP buffer), and
// a write to it then blocks for good: everything the server sends on the
// channel (output, stderr, exit status, close) that is still blocked after
// timeout calls stuck, which closes the connection; that fails the write
// and ends every session on the connection. The bound is per write of at
// most 32 KiB (the library copies the PTY in such pieces), so only a
// client that takes almost nothing for that long is cut off.
type guardedChannel struct {
	gossh.Channel
	timeout time.Duration
	stuck   func()
}

func (c guardedChannel) guard() *time.Timer { return time.AfterFunc(c.timeout, c.stuck) }

func (c guardedChannel) Write(p []byte) (int, error) {
	defer c.guard().Stop()
	return c.Channel.Write(p)
}

func (c guardedChannel) SendRequest(name string, wantReply bool, payload []byte) (bool, error) {
	defer c.guard().Stop()
	return c.Channel.SendRequest(name, wantReply, payload)
}

func (c guardedChannel) Close() error {
	defer c.guard().Stop()
	return c.Channel.Close()
}

func (c guardedChannel) CloseWrite() error {
	defer c.guard().Stop()
	return c.Channel.CloseWrite()
}

func (c guardedChannel) Stderr() io.ReadWriter {
	return guardedStderr{ReadWriter: c.Channel.Stderr(), c: c}
}

type guardedStderr struct {
	io.ReadWriter
	c guardedChannel
}

func (e guardedStderr) Write(p []byte) (int, error) {
	defer e.c.guard().Stop()
	return e.ReadWriter.Write(p)
}

// maxWindowCols and maxWindowRows bound the window size a client may
// claim: more than any screen shows, little enough that a frame stays a few
// megabytes.
const (
	maxWindowCols = 1000
	maxWindowRows = 500
)

// windowPayload is a window-change request; ptyPayload a pty-req (RFC
// 4254 6.2 and 6.7).
type windowPayload struct{ Cols, Rows, Width, Height uint32 }

type ptyPayload struct {
	Term                      string
	Cols, Rows, Width, Height uint32
	Modes                     string
}

// clampWindowChange and clampPtyRequest rewrite a request's window size to
// one a terminal can have, so that neither the PTY nor the program is
// asked for 2³¹ lines. A payload that does not parse is left to the
// library, which refuses it.
func clampWindowChange(payload []byte) []byte {
	var w windowPayload
	if gossh.Unmarshal(payload, &w) != nil {
		return payload
	}
	w.Cols, w.Rows = clampSize(w.Cols, maxWindowCols), clampSize(w.Rows, maxWindowRows)
	return gossh.Marshal(w)
}

func clampPtyRequest(payload []byte) []byte {
	var p ptyPayload
	if gossh.Unmarshal(payload, &p) != nil {
		return payload
	}
	p.Cols, p.Rows = clampSize(p.Cols, maxWindowCols), clampSize(p.Rows, maxWindowRows)
	return gossh.Marshal(p)
}

func clampSize(v, most uint32) uint32 {
	return max(1, min(v, most))
}

// privateInput returns the program's own handle on the PTY. Bubble Tea's
// input reader reads the file's descriptor number (Fd) without a lock on
// every wait, and it may outlive the program: stopping it waits at most
// 500 ms, which a busy machine exceeds. Reading the library's PTY file
// then raced with the library closing it (the race detector saw it). A
// duplicate descriptor is never closed by the library; it is closed when
// the reader has let go of it (the file's finalizer), by which time the
// PTY is gone and the reader has returned.
func privateInput(f *os.File) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	dup := -1
	var derr error
	if err := rc.Control(func(fd uintptr) { dup, derr = syscall.Dup(int(fd)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	syscall.CloseOnExec(dup)
	return os.NewFile(uintptr(dup), f.Name()), nil
}
