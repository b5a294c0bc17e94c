// Package sshserver serves a Bubble Tea program over SSH with wish: one
// program, renderer and window size per session, public-key
// authentication only against an authorized_keys file, a host key created
// on first start, an idle timeout, a cap on concurrent sessions and a
// connection log. It holds up against misbehaving clients: writes to a
// client time out, a program whose client is gone is ended, window sizes
// are clamped, and connections that do not authenticate are capped,
// queued and timed out, so that a flood of them does not lock out an
// authorised user. What runs in a session is up to Config.NewModel; pi-tui
// gives every session the full shell over one shared host core.
package sshserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	gossh "golang.org/x/crypto/ssh"
)

// Defaults for the zero Config fields.
const (
	DefaultListen      = "127.0.0.1:23234"
	DefaultIdleTimeout = 30 * time.Minute
	DefaultMaxSessions = 32
	// DefaultWriteTimeout bounds one write to a client: a client that takes
	// nothing for this long is disconnected.
	DefaultWriteTimeout = 10 * time.Second
	// DefaultHandshakeTimeout bounds the time from connecting to being
	// authenticated; long enough to type a key's passphrase.
	DefaultHandshakeTimeout = 30 * time.Second
	// DefaultBannerTimeout bounds the time from being served to having
	// sent the SSH identification line, which a client sends at once.
	DefaultBannerTimeout = 5 * time.Second
	// DefaultStallTimeout is how long a connection not yet authenticated
	// may go without a step of the protocol while others wait for its
	// slot: longer than a round trip on a slow link.
	DefaultStallTimeout = time.Second
	// DefaultMaxUnauthenticated caps connections not yet authenticated.
	DefaultMaxUnauthenticated = 64
	// DefaultShutdownGrace is how long Serve waits, after asking every
	// program to quit, for clients to hang up before closing their
	// connections.
	DefaultShutdownGrace = 3 * time.Second
	// DefaultKillAfter is how long a program whose client is gone has to
	// quit before it is killed.
	DefaultKillAfter = 2 * time.Second
)

// ExecFunc runs an external program (the $EDITOR) in the session's
// terminal and reports its end with done; it fits ui.Options.Exec.
type ExecFunc = func(cmd *exec.Cmd, done func(error) tea.Msg) tea.Cmd

// Config configures a Server.
type Config struct {
	// Listen is the TCP address; empty means DefaultListen (loopback).
	Listen string
	// HostKeyPath is the ed25519 host key, created (0600) when missing.
	HostKeyPath string
	// AuthorizedKeysPath is an OpenSSH authorized_keys file; the server
	// refuses to start without at least one usable key in it.
	AuthorizedKeysPath string
	// IdleTimeout closes a connection without traffic for this long; zero
	// means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxSessions caps concurrent sessions; zero means DefaultMaxSessions.
	MaxSessions int
	// WriteTimeout bounds every write to a client (see guardedChannel); a
	// client that takes nothing for this long is disconnected. Zero means
	// DefaultWriteTimeout.
	WriteTimeout time.Duration
	// HandshakeTimeout closes a connection not authenticated this long
	// after it was accepted, time waiting for a slot included; zero means
	// DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// BannerTimeout closes a connection that has not sent its SSH
	// identification line this long after it was served; zero means
	// DefaultBannerTimeout.
	BannerTimeout time.Duration
	// MaxUnauthenticated caps the connections not yet authenticated that
	// are served at once; the next ones wait for a slot (preauth.go). Zero
	// means DefaultMaxUnauthenticated.
	MaxUnauthenticated int
	// StallTimeout closes, while connections wait for a slot, a served one
	// that has taken no step of the protocol for this long (not one whose
	// key was accepted); zero means DefaultStallTimeout.
	StallTimeout time.Duration
	// ShutdownGrace is how long Serve waits at shutdown for clients to hang
	// up; zero means DefaultShutdownGrace.
	ShutdownGrace time.Duration
	// KillAfter is how long a program whose client is gone has to quit
	// before it is killed; zero means DefaultKillAfter.
	KillAfter time.Duration
	// Log receives one line per authentication attempt and session event
	// (time, user, key fingerprint, remote address, outcome); nil discards.
	Log io.Writer
	// Warn receives warnings such as skipped authorized_keys lines; nil
	// discards.
	Warn io.Writer
	// NewModel builds the model of one session. r is the session's own
	// renderer; exec runs a program in the session's terminal.
	NewModel func(sess ssh.Session, r *lipgloss.Renderer, exec ExecFunc) tea.Model
}

// Server is an SSH server for one model factory.
type Server struct {
	cfg    Config
	keys   map[string]string // wire encoding → SHA256 fingerprint
	hostFP string
	ln     net.Listener
	srv    *ssh.Server

	logMu sync.Mutex

	mu       sync.Mutex
	active   int
	programs map[*live]struct{}
	closing  bool
	changed  chan struct{} // closed and replaced when active or programs change

	adm admission // connections not yet authenticated (preauth.go)
}

// New checks the configuration, loads the authorized keys and the host key
// (creating it on first start) and listens on cfg.Listen. Serve starts
// answering.
func New(cfg Config) (*Server, error) {
	if cfg.NewModel == nil {
		return nil, errors.New("sshserver: Config.NewModel is required")
	}
	if cfg.AuthorizedKeysPath == "" {
		return nil, errors.New("no authorized keys file given: pi-tui serve accepts public keys only")
	}
	if cfg.HostKeyPath == "" {
		return nil, errors.New("no host key path given")
	}
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	orDefault(&cfg.IdleTimeout, DefaultIdleTimeout)
	orDefault(&cfg.MaxSessions, DefaultMaxSessions)
	orDefault(&cfg.WriteTimeout, DefaultWriteTimeout)
	orDefault(&cfg.HandshakeTimeout, DefaultHandshakeTimeout)
	orDefault(&cfg.BannerTimeout, DefaultBannerTimeout)
	orDefault(&cfg.MaxUnauthenticated, DefaultMaxUnauthenticated)
	orDefault(&cfg.StallTimeout, DefaultStallTimeout)
	orDefault(&cfg.ShutdownGrace, DefaultShutdownGrace)
	orDefault(&cfg.KillAfter, DefaultKillAfter)
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Warn == nil {
		cfg.Warn = io.Discard
	}
	keys, err := loadAuthorizedKeys(cfg.AuthorizedKeysPath, cfg.Warn)
	if err != nil {
		return nil, err
	}
	signer, err := loadOrCreateHostKey(cfg.HostKeyPath)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, keys: keys, hostFP: gossh.FingerprintSHA256(signer.PublicKey()), programs: map[*live]struct{}{}}
	s.adm.serving = map[*pendingConn]struct{}{}
	s.srv, err = wish.NewServer(
		func(srv *ssh.Server) error { srv.AddHostKey(signer); return nil }, // before wish would make one of its own
		wish.WithPublicKeyAuth(s.checkKey),
		wish.WithIdleTimeout(cfg.IdleTimeout),
		ssh.AllocatePty(), // a real PTY, so $EDITOR runs on the client's terminal
		wish.WithMiddleware(s.teaMiddleware),
		func(srv *ssh.Server) error {
			srv.ServerConfigCallback = s.serverConfig
			srv.ConnCallback = s.admitConn
			// Sessions only: no port forwarding, no other channel types.
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.sessionChannel}
			return nil
		},
	)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	s.ln = ln
	return s, nil
}

// orDefault sets a zero or negative limit to its default.
func orDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// HostKeyFingerprint is the SHA256 fingerprint of the host key, as ssh
// shows it on first connection.
func (s *Server) HostKeyFingerprint() string { return s.hostFP }

// AuthorizedKeys is how many usable keys were loaded.
func (s *Server) AuthorizedKeys() int { return len(s.keys) }

// Serve answers connections until ctx is cancelled; then it stops
// accepting, asks every session's program to quit, waits briefly for the
// clients to hang up and closes what remains. No step of the shutdown
// waits on a client: a program whose client is gone is killed after a
// bound. It returns nil after a shutdown through ctx.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, ssh.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	// The programs are asked outside the lock: asking does not wait, but
	// a session ending takes the lock.
	s.mu.Lock()
	s.closing = true
	programs := make([]*live, 0, len(s.programs))
	for l := range s.programs {
		programs = append(programs, l)
	}
	s.mu.Unlock()
	for _, l := range programs {
		l.stop()
	}
	// Wait for the programs to end, then close every connection: the
	// programs still running lose their clients, and end within KillAfter.
	// The library's graceful Shutdown is not used: it waits on a WaitGroup
	// that a connection still in its handshake adds to concurrently (a
	// data race the race detector reports); Close has no such wait.
	s.ln.Close()
	s.closePending()
	s.waitPrograms(s.cfg.ShutdownGrace)
	s.srv.Close()
	s.waitPrograms(s.cfg.KillAfter + time.Second)
	<-errc
	return nil
}

// waitPrograms waits until no program runs, at most d.
func (s *Server) waitPrograms(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		_, running, changed := s.watch()
		if running == 0 {
			return
		}
		select {
		case <-changed:
		case <-t.C:
			return
		}
	}
}

// serverConfig adds to wish's configuration what it does not expose: a
// log line for the key actually verified and for refused methods, the
// steps of a connection that authenticates, and the end of the handshake
// limits once the key is verified.
func (s *Server) serverConfig(ctx ssh.Context) *gossh.ServerConfig {
	return &gossh.ServerConfig{
		MaxAuthTries: 6,
		VerifiedPublicKeyCallback: func(conn gossh.ConnMetadata, key gossh.PublicKey, perms *gossh.Permissions, _ string) (*gossh.Permissions, error) {
			s.logConn(conn.User(), gossh.FingerprintSHA256(key), conn.RemoteAddr(), "accepted")
			if pc := pendingOf(ctx); pc != nil {
				pc.authenticated()
			}
			return perms, nil
		},
		AuthLogCallback: func(conn gossh.ConnMetadata, method string, err error) {
			if pc := pendingOf(ctx); pc != nil {
				pc.stepped(authenticating)
			}
			if err != nil && method != "publickey" && method != "none" {
				s.logConn(conn.User(), "-", conn.RemoteAddr(), "rejected method="+method)
			}
		},
	}
}

// checkKey accepts exactly the keys of the authorized_keys file. A key
// offered but unknown is logged as rejected here; a known key is logged
// once the client has proved it holds it (serverConfig).
func (s *Server) checkKey(ctx ssh.Context, key ssh.PublicKey) bool {
	if _, ok := s.keys[string(key.Marshal())]; ok {
		if pc := pendingOf(ctx); pc != nil {
			pc.stepped(knownKey)
		}
		return true
	}
	s.logConn(ctx.User(), gossh.FingerprintSHA256(key), ctx.RemoteAddr(), "rejected unknown-key")
	return false
}

// logConn writes one line: time, outcome, user, key fingerprint, address.
// Never the key itself.
func (s *Server) logConn(user, fingerprint string, addr net.Addr, outcome string) {
	a := "-"
	if addr != nil {
		a = addr.String()
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.cfg.Log, "%s %s user=%q key=%s addr=%s\n", time.Now().UTC().Format(time.RFC3339), outcome, user, fingerprint, a)
}

func (s *Server) logSession(sess ssh.Session, outcome string) {
	fp := "-"
	if k := sess.PublicKey(); k != nil {
		fp = gossh.FingerprintSHA256(k)
	}
	s.logConn(sess.User(), fp, sess.RemoteAddr(), outcome)
}

// admit counts a session in, unless the cap is reached or the server is
// shutting down.
func (s *Server) admit() (reason, msg string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return "shutting-down", "pi-tui is shutting down; try again later", false
	case s.active >= s.cfg.MaxSessions:
		return "too-many-sessions", fmt.Sprintf("pi-tui: too many sessions (%d open, the limit); try again later", s.active), false
	}
	s.active++
	s.notifyLocked()
	return "", "", true
}

func (s *Server) leave() {
	s.mu.Lock()
	s.active--
	s.notifyLocked()
	s.mu.Unlock()
}

// notifyLocked wakes whoever waits on a change of the counts.
func (s *Server) notifyLocked() {
	if s.changed != nil {
		close(s.changed)
	}
	s.changed = make(chan struct{})
}

// watch reports the sessions admitted and the programs running, and a
// channel closed at the next change of either.
func (s *Server) watch() (active, running int, changed <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.active, len(s.programs), s.changed
}

func (s *Server) track(l *live) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.programs[l] = struct{}{}
	s.notifyLocked()
	return true
}

func (s *Server) untrack(l *live) {
	s.mu.Lock()
	delete(s.programs, l)
	s.notifyLocked()
	s.mu.Unlock()
}

// say writes a one-line message to the client and ends the session.
func say(sess ssh.Session, msg string) {
	eol := "\n"
	if _, _, ok := sess.Pty(); ok {
		eol = "\r\n" // the client's terminal is raw
	}
	io.WriteString(sess.Stderr(), msg+eol)
	sess.Exit(1)
}
