package sshserver

import (
	"context"
	"encoding/base64"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

func TestProjectsOverSSH(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.addProject("proj")
	w.start(nil)
	tm := w.openTerm(100, 30, "xterm-256color", nil)
	tm.waitFor("Projects", "[1 Projects]", "2 Session", "3 Settings", "proj")
	tm.key("2", "[2 Session]")
	tm.key("1", "[1 Projects]")
	if !strings.Contains(tm.raw(), "\x1b[?1049h") {
		t.Error("the program did not switch to the alternate screen")
	}
}

// Each session has its own renderer: a client asking for no colour gets
// none while another client, at the same time, gets colours.
func TestPerSessionRenderer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.addProject("proj")
	w.start(nil)
	colour := w.openTerm(100, 30, "xterm-256color", nil)
	plain := w.openTerm(100, 30, "xterm-256color", map[string]string{"NO_COLOR": "1"})
	dumb := w.openTerm(100, 30, "dumb", nil)
	for _, tm := range []*term{colour, plain, dumb} {
		tm.waitFor("[1 Projects]", "proj")
	}
	hasColour := func(s string) bool { return strings.Contains(s, "\x1b[38;") || strings.Contains(s, ";38;") }
	if !hasColour(colour.raw()) {
		t.Error("the 256-colour client got no colour")
	}
	if hasColour(plain.raw()) {
		t.Error("the NO_COLOR client got colour")
	}
	if hasColour(dumb.raw()) {
		t.Error("the TERM=dumb client got colour")
	}
}

func TestUnknownKeyIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(nil)
	stranger := newSigner(t)
	if _, err := w.dial(gossh.PublicKeys(stranger)); err == nil {
		t.Fatal("an unknown key was let in")
	}
	fp := gossh.FingerprintSHA256(stranger.PublicKey())
	if log := w.log.String(); !strings.Contains(log, "rejected unknown-key") || !strings.Contains(log, fp) {
		t.Errorf("the refusal is not logged with the fingerprint:\n%s", log)
	}
}

func TestPasswordAndKeyboardInteractiveAreRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(nil)
	if _, err := w.dial(gossh.Password("hunter2")); err == nil {
		t.Fatal("a password was accepted")
	}
	ki := gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })
	if _, err := w.dial(ki); err == nil {
		t.Fatal("keyboard-interactive was accepted")
	}
	// The server offers publickey only, so clients do not even send a
	// password; a refused attempt would be logged as method=password.
	if _, err := w.dial(gossh.Password("hunter2")); err == nil || !strings.Contains(err.Error(), "no supported methods remain") {
		t.Errorf("dial with a password: %v", err)
	}
}

func TestSessionWithoutPTY(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(nil)
	c, err := w.dial()
	if err != nil {
		t.Fatal(err)
	}
	tm := openTermOn(t, c, 0, 0, "", nil, false)
	tm.waitFor("pi-tui needs an interactive terminal: connect with ssh -t")
	var exit *gossh.ExitError
	if err := tm.ended(); !errors.As(err, &exit) || exit.ExitStatus() != 1 {
		t.Errorf("exit: %v, want status 1", err)
	}
	if out := tm.raw(); strings.Count(out, "\n") != 1 {
		t.Errorf("want one line, got %q", out)
	}
}

func TestMalformedAuthorizedKeyLineIsSkipped(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	other := newSigner(t)
	w.writeKeys("# team keys\n\nssh-ed25519 AAAAnot-base64!! broken@laptop\n" + authorizedLine(w.user) +
		`from="10.0.0.1" ` + authorizedLine(other) + "no-port-forwarding " + authorizedLine(other))
	w.start(nil)
	warn := w.warn.String()
	if !strings.Contains(warn, w.keysPath+":3:") || !strings.Contains(warn, "line skipped") {
		t.Errorf("the bad line 3 is not reported:\n%s", warn)
	}
	if !strings.Contains(warn, w.keysPath+":5:") || !strings.Contains(warn, `"from"`) {
		t.Errorf("the unsupported option on line 5 is not reported:\n%s", warn)
	}
	if strings.Contains(warn, ":6:") {
		t.Errorf("line 6 (a harmless option) was reported:\n%s", warn)
	}
	if w.srv.AuthorizedKeys() != 2 {
		t.Errorf("%d keys loaded, want 2", w.srv.AuthorizedKeys())
	}
	w.openTerm(100, 30, "xterm", nil).waitFor("[1 Projects]")
	if _, err := w.dial(gossh.PublicKeys(other)); err != nil {
		t.Errorf("the key on line 6 does not work: %v", err)
	}
}

func TestNoUsableKeyRefusesToStart(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.writeKeys("# nothing here\nnot a key\n")
	_, err := New(w.config())
	if err == nil || !strings.Contains(err.Error(), "no usable public key in "+w.keysPath) {
		t.Errorf("New: %v", err)
	}
	if !strings.Contains(w.warn.String(), ":2:") {
		t.Errorf("the bad line is not reported: %s", w.warn.String())
	}
	cfg := w.config()
	cfg.AuthorizedKeysPath = filepath.Join(w.home, "missing")
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "no authorized keys file") {
		t.Errorf("New with a missing file: %v", err)
	}
	if _, err := os.Stat(cfg.HostKeyPath); err == nil {
		t.Error("a host key was created by a server that did not start")
	}
}

func TestHostKeyCreatedOnceAndReused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cfg := w.config()
	s1, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s1.ln.Close()
	fi, err := os.Stat(cfg.HostKeyPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("host key mode %04o, want 0600", fi.Mode().Perm())
	}
	// The second start reuses it, and clients see that key.
	w.start(nil)
	if w.srv.HostKeyFingerprint() != s1.HostKeyFingerprint() {
		t.Errorf("fingerprint changed: %s then %s", s1.HostKeyFingerprint(), w.srv.HostKeyFingerprint())
	}
	var seen string
	c, err := gossh.Dial("tcp", w.addr, &gossh.ClientConfig{User: "bob", Auth: []gossh.AuthMethod{gossh.PublicKeys(w.user)},
		HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error { seen = gossh.FingerprintSHA256(k); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if seen != s1.HostKeyFingerprint() {
		t.Errorf("client saw %s, want %s", seen, s1.HostKeyFingerprint())
	}
	// A key file others can read is refused.
	os.Chmod(cfg.HostKeyPath, 0o644)
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("New with a 0644 host key: %v", err)
	}
}

// Two people edit the same project's memory at once: the second save
// gets the app's conflict dialog instead of clobbering the first.
func TestTwoSessionsEditSameMemory(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	root := w.addProject("proj")
	w.start(nil)
	a := w.openTerm(100, 30, "xterm-256color", nil)
	b := w.openTerm(100, 30, "xterm-256color", nil)
	for _, tm := range []*term{a, b} {
		tm.waitFor("[1 Projects]", "proj")
		tm.key(keyEnter, "Edit memory")
		tm.key("m", "No memory yet")
		tm.key("a", "tab title/content")
		tm.key("\t", "› Content")
	}
	a.key("from Alice", "from Alice")
	b.key("from Bob", "from Bob")
	a.key(keyEsc, "a add · enter edit")
	b.key(keyEsc, "a add · enter edit")
	a.key(keyCtrlS, "saved memory of proj: 1 entry")
	b.key(keyCtrlS, "Memory changed; reload?")
	m, err := w.host.Memory.Load(context.Background(), root)
	if err != nil || !strings.Contains(m.Content, "from Alice") || strings.Contains(m.Content, "from Bob") {
		t.Errorf("stored memory %q (%v), want Alice's", m.Content, err)
	}
	b.key("o", "saved memory of proj: 1 entry") // Bob overwrites, knowingly
	if m, _ = w.host.Memory.Load(context.Background(), root); !strings.Contains(m.Content, "from Bob") {
		t.Errorf("after overwrite: %q", m.Content)
	}
}

func TestResizeReachesProgram(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.addProject("proj")
	w.start(nil)
	tm := w.openTerm(100, 30, "xterm-256color", nil)
	tm.waitFor("[1 Projects]")
	for range 2 { // twice: every resize must arrive, not every other one
		tm.mu.Lock()
		tm.mark = len(tm.out)
		tm.mu.Unlock()
		if _, err := tm.sess.SendRequest("window-change", false, gossh.Marshal(struct{ Cols, Rows, W, H uint32 }{50, 12, 0, 0})); err != nil {
			t.Fatal(err)
		}
		tm.waitFor("too small", "50×12")
		tm.mu.Lock()
		tm.mark = len(tm.out)
		tm.mu.Unlock()
		if _, err := tm.sess.SendRequest("window-change", false, gossh.Marshal(struct{ Cols, Rows, W, H uint32 }{100, 30, 0, 0})); err != nil {
			t.Fatal(err)
		}
		tm.waitFor("[1 Projects]")
	}
}

func TestConnectionLog(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(nil)
	w.openTerm(100, 30, "xterm", nil).waitFor("[1 Projects]")
	w.dial(gossh.PublicKeys(newSigner(t)))
	log := w.log.String()
	fp := gossh.FingerprintSHA256(w.user.PublicKey())
	var accepted string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, " accepted ") {
			accepted = l
		}
	}
	for _, want := range []string{`user="alice"`, "key=" + fp, "addr=127.0.0.1:"} {
		if !strings.Contains(accepted, want) {
			t.Errorf("accepted line %q lacks %q", accepted, want)
		}
	}
	if !strings.Contains(log, "rejected unknown-key") || !strings.Contains(log, "session-start") {
		t.Errorf("log:\n%s", log)
	}
	material := base64.StdEncoding.EncodeToString(w.user.PublicKey().Marshal())
	if strings.Contains(log, material) || strings.Contains(log, material[20:40]) {
		t.Error("the log holds key material")
	}
}

func TestSessionCap(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(func(c *Config) { c.MaxSessions = 1 })
	first := w.openTerm(100, 30, "xterm", nil)
	first.waitFor("[1 Projects]")
	second := w.openTerm(100, 30, "xterm", nil)
	second.waitFor("too many sessions")
	second.ended()
	first.send("q") // the first session is unaffected and can quit
	first.ended()
	third := w.openTerm(100, 30, "xterm", nil)
	third.waitFor("[1 Projects]")
	if !strings.Contains(w.log.String(), "refused too-many-sessions") {
		t.Errorf("log:\n%s", w.log.String())
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(func(c *Config) { c.IdleTimeout = 300 * time.Millisecond })
	tm := w.openTerm(100, 30, "xterm", nil)
	tm.waitFor("[1 Projects]")
	tm.ended() // no traffic: the server hangs up
}

// $EDITOR runs in the client's PTY: it sees a terminal of the client's
// size, and its output reaches the client.
func TestEditorRunsInClientTerminal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	root := w.addProject("proj")
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("# Original rules\n"), 0o644)
	script := filepath.Join(w.home, "fake-editor")
	os.WriteFile(script, []byte("#!/bin/sh\nif [ -t 0 ] && [ -t 1 ]; then echo \"EDITOR-ON-TTY $(stty size) $TERM\"; fi\necho 'Edited over SSH.' >> \"$1\"\n"), 0o755)
	w.env["EDITOR"] = script
	w.start(nil)
	tm := w.openTerm(100, 30, "xterm-256color", nil)
	tm.waitFor("[1 Projects]", "› proj") // the list is loaded: enter has a row to act on
	tm.key(keyEnter, "Edit AGENTS.md")
	tm.key("a", "Original rules")
	tm.key(keyCtrlE, "EDITOR-ON-TTY 30 100 xterm-256color")
	tm.waitFor("Edited over SSH.") // the page reloads the file
	data, _ := os.ReadFile(filepath.Join(root, "AGENTS.md"))
	if !strings.Contains(string(data), "Edited over SSH.") {
		t.Errorf("AGENTS.md: %q", data)
	}
}

func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(nil)
	tm := w.openTerm(100, 30, "xterm", nil)
	tm.waitFor("[1 Projects]")
	if err := w.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	tm.ended()
	if _, err := w.dial(); err == nil {
		t.Error("the server still accepts connections")
	}
}
