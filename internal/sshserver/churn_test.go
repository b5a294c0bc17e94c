package sshserver

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/e2egate"
	gossh "golang.org/x/crypto/ssh"
)

// TestFiftyClientsChurn has 50 clients connect at once, type, resize
// (absurd sizes too) and drop, half by closing the session and half by
// cutting the connection; some are turned away by the session cap. Under
// the race detector this is the serve path's data-race check. Afterwards
// every slot is free and a new client gets a working shell.
func TestFiftyClientsChurn(t *testing.T) {
	e2egate.Require(t, "a load test of 50 clients")
	w := newWorld(t)
	w.addProject("alpha")
	w.start(nil)

	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := churn(w, i); err != nil {
				errs <- fmt.Errorf("client %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// Every slot is freed and every program ended.
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		active, running, changed := w.srv.watch()
		if active == 0 && running == 0 {
			break
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("after the churn: %d sessions admitted, %d programs running", active, running)
		}
	}
	tm := w.openTerm(80, 24, "xterm-256color", nil)
	tm.waitFor("[1 Projects]", "alpha")
}

// churn is one client's life: connect, wait for the shell (or the cap's
// refusal), type, resize, drop.
func churn(w *world, i int) error {
	c, err := w.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		return err
	}
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		return err
	}
	in, err := sess.StdinPipe()
	if err != nil {
		return err
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr syncBuffer // the cap's refusal comes on stderr
	sess.Stderr = &stderr
	seen := make(chan string, 1)
	go func() {
		// Read everything (a client that stops reading is another test),
		// reporting the first sign of life, and answer the renderer's
		// terminal query as a terminal would.
		var buf bytes.Buffer
		chunk := make([]byte, 32<<10)
		reported := false
		for {
			n, err := out.Read(chunk)
			buf.Write(chunk[:n])
			if !reported && bytes.Contains(buf.Bytes(), []byte("\x1b[c")) {
				in.Write([]byte("\x1b]11;rgb:1c1c/1c1c/1c1c\x07\x1b[?62;22c"))
			}
			if !reported {
				switch {
				case bytes.Contains(buf.Bytes(), []byte("Projects")):
					reported = true
					seen <- "shell"
				case bytes.Contains(buf.Bytes(), []byte("too many sessions")):
					reported = true
					seen <- "refused"
				}
			}
			if err != nil {
				if !reported {
					seen <- "ended: " + err.Error()
				}
				io.Copy(io.Discard, out)
				return
			}
		}
	}()
	if err := sess.Shell(); err != nil {
		return err
	}
	select {
	case got := <-seen:
		if got != "shell" {
			sess.Wait() // stderr is copied in full by then
		}
		if got == "refused" || bytes.Contains([]byte(stderr.String()), []byte("too many sessions")) {
			return nil // the cap at work
		}
		if got != "shell" {
			return fmt.Errorf("no shell: %s; stderr %q", got, stderr.String())
		}
	case <-time.After(waitLimit):
		return fmt.Errorf("no shell after %s", waitLimit)
	}
	for _, k := range []string{"j", "k", "/", "al", "\x1b", "2", "1", "?", "?"} {
		if _, err := io.WriteString(in, k); err != nil {
			return nil // dropped by the server (write timeout): fine here
		}
	}
	for _, sz := range [][2]int{{120, 40}, {1 << 30, 1 << 30}, {1, 1}, {0, 0}, {100, 30}} {
		sess.WindowChange(sz[1], sz[0])
	}
	if i%2 == 0 {
		return sess.Close() // the polite way
	}
	return c.Close() // the connection just goes
}
