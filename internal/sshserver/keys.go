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
)

// harmlessOptions are authorized_keys options that only forbid things this
// server never offers (forwarding, agent, X11, rc files), so a key carrying
// them can be used as is. Any other option (from=, command=, no-pty,
// expiry-time=, cert-authority, …) would be a restriction or a meaning
// pi-tui does not implement: such a key is skipped rather than accepted
// with the restriction silently dropped.
var harmlessOptions = map[string]bool{
	"restrict":            true,
	"no-port-forwarding":  true,
	"no-agent-forwarding": true,
	"no-x11-forwarding":   true,
	"no-user-rc":          true,
}

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
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key, _, options, rest, err := gossh.ParseAuthorizedKey(line)
		if err == nil && len(bytes.TrimSpace(rest)) > 0 {
			err = errors.New("more than one key on the line")
		}
		if err != nil {
			fmt.Fprintf(warn, "pi-tui serve: warning: %s:%d: not a public key (%v); line skipped\n", path, n, err)
			continue
		}
		if bad := unsupportedOption(options); bad != "" {
			fmt.Fprintf(warn, "pi-tui serve: warning: %s:%d: option %q is not supported by pi-tui serve; key skipped\n", path, n, bad)
			continue
		}
		if _, isCert := key.(*gossh.Certificate); isCert {
			fmt.Fprintf(warn, "pi-tui serve: warning: %s:%d: certificates are not supported; key skipped\n", path, n)
			continue
		}
		keys[string(key.Marshal())] = gossh.FingerprintSHA256(key)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read authorized keys %s: line %d: %w", path, n+1, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no usable public key in %s: pi-tui serve accepts public keys only and refuses to start without one; add a line such as the contents of ~/.ssh/id_ed25519.pub", path)
	}
	return keys, nil
}

func unsupportedOption(options []string) string {
	for _, o := range options {
		name, _, _ := strings.Cut(o, "=")
		if !harmlessOptions[strings.ToLower(name)] {
			return name
		}
	}
	return ""
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
