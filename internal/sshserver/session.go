package sshserver

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	bm "github.com/charmbracelet/wish/bubbletea"
	"github.com/muesli/termenv"
	gossh "golang.org/x/crypto/ssh"
)

// teaMiddleware runs one Bubble Tea program per session. It is wish's
// bubbletea middleware in spirit (and uses its MakeRenderer and
// MakeOptions helpers), with two changes: sessions without a PTY, over
// the cap or arriving during shutdown get a one-line message; and window
// changes come from sessionChannel rather than from the session's window
// channel, which the PTY allocator also reads (two readers of one
// channel would each get only some of the resizes).
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
		// ctx ends with the connection or, earlier, with this session's
		// channel (a client may close one session and keep the connection).
		ctx, cancel := context.WithCancel(sess.Context())
		defer cancel()
		stop := context.AfterFunc(st.ctx, cancel)
		defer stop()
		m := s.cfg.NewModel(sess, r, execIn(ctx, sess, pty.Term))
		opts := append(bm.MakeOptions(sess),
			tea.WithAltScreen(),
			tea.WithEnvironment(sess.Environ()),
			tea.WithoutSignalHandler(), // signals belong to the server, not to each session
			// Bubble Tea's maximum: a frame waits at most 8 ms for the
			// ticker instead of 16 (key-to-frame latency; an idle tick
			// writes nothing).
			tea.WithFPS(120),
		)
		p := tea.NewProgram(m, opts...)
		if !s.track(p) {
			say(sess, "pi-tui is shutting down; try again later")
			return
		}
		defer s.untrack(p)
		s.logSession(sess, "session-start")

		go func() {
			for {
				select {
				case <-ctx.Done():
					// Quit rather than Kill (or WithContext, which kills):
					// a quitting program waits for its input reader to
					// stop before Run returns and the library closes the
					// PTY that reader uses.
					p.Quit()
					return
				case <-st.changed:
					cols, rows := st.size()
					p.Send(tea.WindowSizeMsg{Width: cols, Height: rows})
				}
			}
		}()
		final, err := p.Run()
		// A model holding shared services (subscriptions, approvals, a
		// running turn) releases them when its client is gone.
		if c, ok := final.(interface{ Close() }); ok {
			c.Close()
		}
		outcome := "session-end"
		if err != nil {
			outcome = "session-error " + strings.Join(strings.Fields(err.Error()), "_")
		}
		s.logSession(sess, outcome)
	}
}

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
}

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

// sessionChannel is ssh.DefaultSessionHandler with the session's requests
// passed through a watcher: it notes every window-change (the PTY still
// gets every resize from the library, and the program gets every resize
// from the state), and when the client closes the channel it stops the
// handler before the library closes the PTY under it. The state reaches
// the handler through the session's context.
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	st := newSessionState()
	defer st.cancel()
	ssh.DefaultSessionHandler(srv, conn, watchedChannel{NewChannel: nc, st: st}, sessionContext{Context: ctx, st: st})
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
	st *sessionState
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
	return ch, out, nil
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
