// Package bridge is the host side of pi-tui's bridge to the user's pi: a
// private channel (a Unix socket in a 0700 folder, one peer holding a
// random token) over which the bridge extension running inside pi asks
// pi-tui for the system text, tool-call decisions, deliveries, remember
// writes and trust (docs/adr/0046-pi-bridge.md). This file is the
// channel; decisions.go is pi-tui's answers; install.go writes the
// extension where pi can load it.
//
// Nothing the peer sends can wedge or crash the host: the first line is
// bounded (4 KiB, 10 s), every later line too (8 MiB, beyond which the
// channel ends), at most MaxInFlight requests are answered at once (the
// reader waits for a free slot, so a flood stays in the kernel's buffer),
// a peer that does not read its answers is cut off after a write timeout,
// and every handler's context ends with the channel.
package bridge

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// Timeouts of the channel.
const (
	helloTimeout = 10 * time.Second
	writeTimeout = 30 * time.Second
	// maxHandshakes bounds the connections waiting to say hello.
	maxHandshakes = 8
)

// ErrLineTooLong ends a channel whose peer sent a line over MaxLineBytes.
var ErrLineTooLong = fmt.Errorf("the bridge sent a line longer than %d MiB", MaxLineBytes>>20)

// Server is one runtime's channel: it listens until its one peer has said
// hello with the token, then serves that peer until either side ends.
type Server struct {
	host  Host
	dir   string // the 0700 folder holding the socket
	sock  string
	token string
	ln    *net.UnixListener

	mu        sync.Mutex
	closed    bool
	conn      net.Conn
	greeting  map[net.Conn]struct{} // connections still saying hello (Close ends them)
	piVersion string                // what the welcomed peer said pi's version is
	done      chan struct{}         // closed by Close
	once      sync.Once
}

// Listen makes a 0700 folder with a random name in dir and listens on
// bridge.sock inside it, for h. dir is created (0700) when missing.
func Listen(dir string, h Host) (*Server, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	var name [16]byte
	var token [32]byte
	if _, err := rand.Read(name[:]); err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	if _, err := rand.Read(token[:]); err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	folder := filepath.Join(dir, hex.EncodeToString(name[:8]))
	if err := os.Mkdir(folder, 0o700); err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	sock := filepath.Join(folder, "bridge.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		os.RemoveAll(folder)
		return nil, fmt.Errorf("bridge: listen: %w (the socket path %s may be too long)", err, sock)
	}
	ln.SetUnlinkOnClose(true)
	return &Server{host: h, dir: folder, sock: sock, token: hex.EncodeToString(token[:]), ln: ln, done: make(chan struct{})}, nil
}

// Env returns the environment variables that give pi's bridge the channel.
func (s *Server) Env() []string {
	return []string{EnvSocket + "=" + s.sock, EnvToken + "=" + s.token}
}

// PiVersion is the version the welcomed peer said its pi runs (the
// version pi read from its own package.json); "" before the welcome, or
// when the bridge could not tell. pi loads its extensions, and so welcomes
// the bridge, before it answers its first command.
func (s *Server) PiVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.piVersion
}

// Socket returns the socket's path (gone once the peer is accepted).
func (s *Server) Socket() string { return s.sock }

// Close ends the channel and the listener and removes the folder. It is
// safe to call more than once and from any goroutine.
func (s *Server) Close() error {
	s.once.Do(func() {
		close(s.done)
		s.mu.Lock()
		s.closed = true
		if s.conn != nil {
			s.conn.Close()
		}
		for c := range s.greeting {
			c.Close()
		}
		s.mu.Unlock()
		s.ln.Close()
		os.RemoveAll(s.dir)
	})
	return nil
}

// Serve accepts the one peer and answers it until the channel ends: nil
// when the peer closed it or ctx or Close ended it, an error when the peer
// broke the protocol (a line too long, garbage). Call it once.
func (s *Server) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-ctx.Done():
			s.Close()
		case <-s.done:
		}
	}()
	conn, br, err := s.accept(ctx)
	if err != nil {
		select {
		case <-s.done:
			return nil // Close ended it, perhaps while a peer was greeted
		default:
		}
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		conn.Close()
		return nil
	}
	s.conn = conn
	s.mu.Unlock()
	defer conn.Close()
	return s.serve(ctx, conn, br)
}

// accept waits for the first connection whose first line is a hello with
// the token; the others are refused and closed.
func (s *Server) accept(ctx context.Context) (net.Conn, *bufio.Reader, error) {
	type peer struct {
		c  net.Conn
		br *bufio.Reader
	}
	won := make(chan peer, 1)
	slots := make(chan struct{}, maxHandshakes)
	var winner sync.Once
	// The handshakes still running when the listener closes (the winner
	// closed it, or Close did) are waited for, so a peer welcomed just
	// then is taken (or, after Close, closed by Serve), never left open.
	var greeting sync.WaitGroup
	for {
		c, err := s.ln.Accept()
		if err != nil {
			greeting.Wait()
			select {
			case p := <-won:
				return p.c, p.br, nil
			default:
			}
			return nil, nil, fmt.Errorf("bridge: %w", err)
		}
		select {
		case slots <- struct{}{}:
		default:
			c.Close() // too many waiting to say hello
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			continue // Accept fails next: the listener is closed
		}
		if s.greeting == nil {
			s.greeting = map[net.Conn]struct{}{}
		}
		s.greeting[c] = struct{}{}
		s.mu.Unlock()
		greeting.Add(1)
		go func() {
			defer greeting.Done()
			defer func() { <-slots }()
			defer func() {
				s.mu.Lock()
				delete(s.greeting, c)
				s.mu.Unlock()
			}()
			// The first hello with the token claims the channel: the
			// listener closes and the socket goes before it is welcomed,
			// so no second peer can connect once the first is in.
			claim := func() bool {
				accepted := false
				winner.Do(func() {
					accepted = true
					s.ln.Close() // ends the Accept loop
					os.Remove(s.sock)
					// The others still saying hello would be refused: end
					// them now, so that a silent one does not hold the
					// channel's start for its hello timeout.
					s.mu.Lock()
					for g := range s.greeting {
						if g != c {
							g.Close()
						}
					}
					s.mu.Unlock()
				})
				return accepted
			}
			br, ok := s.handshake(c, claim)
			if !ok {
				c.Close()
				return
			}
			won <- peer{c, br}
		}()
	}
}

// handshake reads the first line (bounded in size and time) and answers
// it; ok is set for a hello with the token that claim made the peer,
// which has been welcomed (a later one is refused). The peer's pi version
// is kept before the welcome goes out, so it is there by the time pi
// answers its first command.
func (s *Server) handshake(c net.Conn, claim func() bool) (*bufio.Reader, bool) {
	c.SetReadDeadline(time.Now().Add(helloTimeout))
	br := bufio.NewReaderSize(c, 64<<10)
	line, err := readLine(br, MaxHelloBytes)
	if err != nil {
		writeLine(c, refused{Type: "refused", Error: "no hello"})
		return nil, false
	}
	var h hello
	if json.Unmarshal(line, &h) != nil || h.Type != "hello" || subtle.ConstantTimeCompare([]byte(h.Token), []byte(s.token)) != 1 {
		writeLine(c, refused{Type: "refused", Error: "wrong token"})
		return nil, false
	}
	if h.Protocol != Protocol {
		writeLine(c, refused{Type: "refused", Error: fmt.Sprintf("pi-tui speaks bridge protocol %d, not %d", Protocol, h.Protocol)})
		return nil, false
	}
	if !claim() {
		writeLine(c, refused{Type: "refused", Error: "the bridge already has its peer"})
		return nil, false
	}
	c.SetReadDeadline(time.Time{})
	w := welcome{Type: "welcome", Protocol: Protocol, Remember: s.host.RememberAllowed()}
	if w.Remember {
		desc, params := toolpolicy.RememberTool()
		w.RememberTool = &ToolDef{Name: toolpolicy.ToolRemember, Description: desc, Parameters: params}
	}
	s.mu.Lock()
	if s.piVersion == "" {
		s.piVersion = printableVersion(h.PiVersion)
	}
	s.mu.Unlock()
	if writeLine(c, w) != nil {
		return nil, false
	}
	return br, true
}

// serve reads requests and answers each in its own goroutine, at most
// MaxInFlight at once.
func (s *Server) serve(ctx context.Context, conn net.Conn, br *bufio.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	var wmu sync.Mutex
	answer := func(r response) {
		wmu.Lock()
		defer wmu.Unlock()
		conn.SetWriteDeadline(time.Now().Add(writeTimeout))
		if writeLine(conn, r) != nil {
			conn.Close() // a peer that does not read is cut off
		}
	}
	slots := make(chan struct{}, MaxInFlight)
	for {
		line, err := readLine(br, MaxLineBytes)
		if err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var req request
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			return errors.New("the bridge sent a line that is not a request")
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			res, err := s.dispatch(ctx, req)
			r := response{ID: *req.ID, Result: res}
			if err != nil {
				r = response{ID: *req.ID, Error: oneLine(err.Error())}
			}
			answer(r)
		}()
	}
}

// dispatch runs one request against the host.
func (s *Server) dispatch(ctx context.Context, req request) (res any, err error) {
	defer func() {
		// A host bug must not take pi-tui down with the channel.
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("pi-tui failed to answer %s: %v", req.Method, p)
		}
	}()
	params := req.Params
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	switch req.Method {
	case MethodSystem:
		var p SystemRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("system: %v", err)
		}
		return s.host.System(ctx, p)
	case MethodToolCall:
		var p ToolCallRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("tool_call: %v", err)
		}
		return s.host.ToolCall(ctx, p)
	case MethodToolResult:
		var p ToolResultRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("tool_result: %v", err)
		}
		return s.host.ToolResult(ctx, p)
	case MethodRemember:
		var p RememberRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("remember: %v", err)
		}
		return s.host.Remember(ctx, p)
	case MethodTrust:
		var p TrustRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("trust: %v", err)
		}
		return s.host.Trust(ctx, p)
	case MethodSent:
		var p SentRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("sent: %v", err)
		}
		if h, ok := s.host.(SentHost); ok {
			if err := h.Sent(ctx, p); err != nil {
				return nil, err
			}
		}
		return struct{}{}, nil
	}
	return nil, fmt.Errorf("unknown method %q", oneLine(req.Method))
}

// readLine reads one LF-terminated line of at most limit bytes (the LF
// not counted) without holding more than that in memory.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > limit+1 {
			return nil, ErrLineTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(line) > limit {
				return nil, ErrLineTooLong
			}
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// printableVersion keeps a peer's version string if it looks like one
// (at most 40 bytes of digits, letters, dots, dashes and pluses), else "".
func printableVersion(v string) string {
	if len(v) > 40 {
		return ""
	}
	for _, r := range v {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '+') {
			return ""
		}
	}
	return v
}

// oneLine keeps an error to one line for the peer.
func oneLine(s string) string {
	if i := bytes.IndexAny([]byte(s), "\r\n"); i >= 0 {
		s = s[:i]
	}
	return s
}
