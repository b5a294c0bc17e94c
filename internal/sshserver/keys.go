package sshserver

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	gossh "golang.org/x/crypto/ssh"

	"github.com/pi-tui/pi-tui/internal/lineread"
)

// harmless reports the authorized_keys options that only forbid or permit
// things this server never offers (forwarding, agent, X11, rc files), so a
// key carrying them can be used as is. restrict, no-pty and pty decide
// whether the key may have a terminal (checkOptions). Any other option
// (from=, command=, expiry-time=, cert-authority, …) would be a
// restriction or a meaning pi-tui does not implement: such a key is
// skipped rather than accepted with the restriction silently dropped.
func harmless(option string) bool {
	switch option {
	case "no-port-forwarding", "no-agent-forwarding", "no-x11-forwarding", "no-user-rc",
		"port-forwarding", "agent-forwarding", "x11-forwarding", "user-rc":
		return true
	}
	return false
}

// Limits on the authorized_keys file: a longer line is skipped like any bad
// line; a larger file (a device or a pipe that never ends) is refused
// rather than read forever.
const (
	maxKeyLine  = 1 << 20
	maxKeysFile = 64 << 20
)

// loadAuthorizedKeys parses an OpenSSH authorized_keys file line by line.
// A line that is not a usable key is reported to warn (with the file and
// line number) and skipped, so one typo does not lock everyone out. The
// result maps each key's wire encoding to its SHA256 fingerprint.
func loadAuthorizedKeys(path string, warn io.Writer) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no authorized keys file %s: pi-tui serve accepts public keys only; add your public key to it or pass --authorized-keys FILE", path)
		}
		return nil, fmt.Errorf("read authorized keys %s: %w", path, err)
	}
	defer f.Close()
	keys := map[string]string{}
	limited := &io.LimitedReader{R: f, N: maxKeysFile + 1}
	r := bufio.NewReader(limited)
	for n := 1; ; n++ {
		line, long, err := lineread.Next(r, maxKeyLine)
		line = bytes.TrimSuffix(line, []byte("\r"))
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read authorized keys %s: line %d: %w", path, n, err)
		}
		if limited.N == 0 {
			return nil, fmt.Errorf("authorized keys %s is larger than %d MiB: pass a file of public keys", path, maxKeysFile>>20)
		}
		if long {
			fmt.Fprintf(warn, "pi-tui serve: warning: %s:%d: line longer than %d MiB; line skipped\n", path, n, maxKeyLine>>20)
		} else if key, fp := parseKeyLine(path, n, line, warn); key != nil {
			keys[string(key.Marshal())] = fp
		}
		if err == io.EOF {
			break
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no usable public key in %s: pi-tui serve accepts public keys only and refuses to start without one; add a line such as the contents of ~/.ssh/id_ed25519.pub", path)
	}
	return keys, nil
}

// parseKeyLine returns the key of one line and its fingerprint, or nil
// after a warning when the line is not a usable key. Blank lines and
// comments give nil without a warning.
func parseKeyLine(path string, n int, line []byte, warn io.Writer) (gossh.PublicKey, string) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] == '#' {
		return nil, ""
	}
	key, _, options, rest, err := gossh.ParseAuthorizedKey(line)
	if err == nil && len(bytes.TrimSpace(rest)) > 0 {
		err = errors.New("more than one key on the line")
	}
	if err != nil {
		fmt.Fprintf(warn, "pi-tui serve: warning: %s:%d: not a public key (%v); line skipped\n", path, n, err)
		return nil, ""
	}
	bad, noPty := checkOptions(options)
	switch {
	case bad != "":
		fmt.Fprintf(warn, "pi-tui serve: warning: %s:%d: option %q is not supported by pi-tui serve; key skipped\n", path, n, bad)
		return nil, ""
	case noPty:
		fmt.Fprintf(warn, "pi-tui serve: warning: %s:%d: no terminal allowed (restrict or no-pty without a later pty), and pi-tui needs one; key skipped (write restrict,pty to allow it)\n", path, n)
		return nil, ""
	}
	if _, isCert := key.(*gossh.Certificate); isCert {
		fmt.Fprintf(warn, "pi-tui serve: warning: %s:%d: certificates are not supported; key skipped\n", path, n)
		return nil, ""
	}
	return key, gossh.FingerprintSHA256(key)
}

// checkOptions returns the first option pi-tui does not implement, if
// any, and whether the options leave the key without a terminal. As in
// OpenSSH, options apply in order: restrict and no-pty forbid a PTY, a
// later pty allows it again.
func checkOptions(options []string) (unsupported string, noPty bool) {
	pty := true
	for _, o := range options {
		name, _, _ := strings.Cut(o, "=")
		switch lower := strings.ToLower(name); {
		case lower == "restrict" || lower == "no-pty":
			pty = false
		case lower == "pty":
			pty = true
		case !harmless(lower):
			return name, false
		}
	}
	return "", !pty
}

// loadOrCreateHostKey reads the host key at path, or creates an ed25519
// key there (mode 0600, parent directory 0700) when there is none. A key
// file that others can read is refused, as OpenSSH does.
func loadOrCreateHostKey(path string) (gossh.Signer, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = createHostKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("host key %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("host key %s is readable by others (mode %04o): run chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	signer, err := gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("host key %s: not an unencrypted OpenSSH private key: %w", path, err)
	}
	return signer, nil
}

func createHostKey(path string) ([]byte, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := gossh.MarshalPrivateKey(priv, "pi-tui host key")
	if err != nil {
		return nil, err
	}
	data := pem.EncodeToMemory(block)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return os.ReadFile(path) // another process created it first
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, err
	}
	return data, nil
}
