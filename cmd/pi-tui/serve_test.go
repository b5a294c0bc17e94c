package main

import (
	"bufio"
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

	gossh "golang.org/x/crypto/ssh"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeEndToEnd starts pi-tui serve as the command line does, opens
// the shell over SSH, then stops it as SIGINT would (the context).
func TestServeEndToEnd(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := gossh.NewSignerFromKey(priv)
	keys := filepath.Join(c.env["HOME"], ".ssh", "authorized_keys")
	os.MkdirAll(filepath.Dir(keys), 0o700)
	os.WriteFile(keys, append([]byte("garbage line\n"), gossh.MarshalAuthorizedKey(signer.PublicKey())...), 0o600)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var errb lockedBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0"}, strings.NewReader(""), outW, &errb, func(k string) string { return c.env[k] })
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("no start line: %v (stderr %s)", err, errb.String())
	}
	go io.Copy(io.Discard, outR)
	addr, _, _ := strings.Cut(strings.TrimPrefix(line, "pi-tui serve: listening on "), " ")
	if !strings.Contains(line, " · 1 authorized key · ") {
		t.Errorf("the start line does not count the one key in the singular: %q", line)
	}
	if !strings.Contains(errb.String(), keys+":1:") {
		t.Errorf("the bad line is not reported: %q", errb.String())
	}

	client, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "me", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("dumb", 30, 100, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	out, _ := sess.StdoutPipe()
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	seen := make(chan struct{})
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		for {
			n, err := out.Read(buf)
			all = append(all, buf[:n]...)
			if bytes.Contains(all, []byte("[1 Projects]")) {
				close(seen)
				io.Copy(io.Discard, out)
				return
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-seen:
	case <-time.After(20 * time.Second):
		t.Fatal("the shell did not appear")
	}
	cancel() // as SIGINT does
	select {
	case got := <-code:
		if got != 0 {
			t.Errorf("exit %d: %s", got, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	data := filepath.Join(c.env["HOME"], "data")
	if fi, err := os.Stat(filepath.Join(data, "ssh_host_ed25519")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("host key: %v %v", fi, err)
	}
	log, _ := os.ReadFile(filepath.Join(data, "ssh.log"))
	if !strings.Contains(string(log), " accepted ") || !strings.Contains(string(log), `user="me"`) {
		t.Errorf("ssh.log: %s", log)
	}
}
