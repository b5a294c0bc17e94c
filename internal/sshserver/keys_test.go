package sshserver

import (
	"os"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// OpenSSH's restrict forbids a PTY unless pty follows it (as no-pty does),
// and pi-tui needs one: such keys are skipped with a warning.
func TestRestrictWithoutPtyIsSkipped(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	restricted, allowed, reordered, noPty := newSigner(t), newSigner(t), newSigner(t), newSigner(t)
	w.writeKeys(authorizedLine(w.user) +
		"restrict " + authorizedLine(restricted) +
		"restrict,pty " + authorizedLine(allowed) +
		"pty,restrict " + authorizedLine(reordered) +
		"no-pty " + authorizedLine(noPty))
	w.start(nil)
	warn := w.warn.String()
	for _, n := range []string{":2:", ":4:", ":5:"} {
		if !strings.Contains(warn, w.keysPath+n+" no terminal allowed") {
			t.Errorf("line %s is not reported:\n%s", n, warn)
		}
	}
	if strings.Contains(warn, ":3:") {
		t.Errorf("restrict,pty was reported:\n%s", warn)
	}
	if w.srv.AuthorizedKeys() != 2 {
		t.Errorf("%d keys loaded, want 2", w.srv.AuthorizedKeys())
	}
	for _, s := range []gossh.Signer{restricted, reordered, noPty} {
		if _, err := w.dial(gossh.PublicKeys(s)); err == nil {
			t.Errorf("key %s without a terminal was let in", gossh.FingerprintSHA256(s.PublicKey()))
		}
	}
	c, err := w.dial(gossh.PublicKeys(allowed))
	if err != nil {
		t.Fatal(err)
	}
	openTermOn(t, c, 100, 30, "xterm", nil, true).waitFor("[1 Projects]")
}

// A line over 1 MiB is skipped like any bad line; the keys around it work.
func TestOverlongAuthorizedKeyLineIsSkipped(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	other := newSigner(t)
	w.writeKeys(authorizedLine(w.user) + strings.Repeat("A", 2<<20) + "\n" + authorizedLine(other))
	w.start(nil)
	if warn := w.warn.String(); !strings.Contains(warn, w.keysPath+":2: line longer than 1 MiB; line skipped") {
		t.Errorf("the long line is not reported:\n%s", warn)
	}
	if w.srv.AuthorizedKeys() != 2 {
		t.Errorf("%d keys loaded, want 2", w.srv.AuthorizedKeys())
	}
	if _, err := w.dial(gossh.PublicKeys(other)); err != nil {
		t.Errorf("the key after the long line does not work: %v", err)
	}
}

// An endless keys file (a device, a pipe that never ends) is refused with
// one line instead of being read forever.
func TestEndlessAuthorizedKeysFileIsRefused(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	w := newWorld(t)
	cfg := w.config()
	cfg.AuthorizedKeysPath = "/dev/zero"
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Errorf("New: %v", err)
	}
}
