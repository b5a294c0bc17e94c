package sshserver

import (
	"bytes"
	"encoding/binary"
	"net"
	"sync"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// openingOf is what openingScanner should report for b, worked out from
// the whole of it at once.
func openingOf(b []byte) progress {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return connected
		}
		line := b[:i]
		b = b[i+1:]
		if bytes.HasPrefix(line, []byte("SSH-")) {
			break
		}
	}
	step := identified
	for len(b) >= 6 {
		length := binary.BigEndian.Uint32(b)
		if length < 2 || length > maxPacketLength || uint64(len(b)-4) < uint64(length) {
			break
		}
		msg := b[5]
		b = b[4+length:]
		if msg == msgNewKeys {
			return keyed
		}
		step = exchanging
	}
	return step
}

// scanIn feeds b to a new scanner in pieces cut at the given offsets.
func scanIn(b []byte, cuts ...int) progress {
	var o openingScanner
	last := 0
	for _, c := range append(cuts, len(b)) {
		c = min(max(c, last), len(b))
		o.feed(b[last:c])
		last = c
	}
	return o.step
}

// recordingConn keeps what the client writes.
type recordingConn struct {
	net.Conn
	mu  sync.Mutex
	out []byte
}

func (r *recordingConn) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.out = append(r.out, p...)
	r.mu.Unlock()
	return r.Conn.Write(p)
}

// What a real client sends before its key exchange ends reaches every
// step up to keyed, however the reads cut it.
func TestOpeningScannerFollowsARealClient(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(nil)
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	rc := &recordingConn{Conn: c}
	cc, _, _, err := gossh.NewClientConn(rc, w.addr, &gossh.ClientConfig{
		User: "alice", Auth: []gossh.AuthMethod{gossh.PublicKeys(w.user)}, HostKeyCallback: gossh.InsecureIgnoreHostKey(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	rc.mu.Lock()
	sent := bytes.Clone(rc.out)
	rc.mu.Unlock()
	if got := scanIn(sent); got != keyed {
		t.Fatalf("the whole opening gives step %d, want keyed (%d)", got, keyed)
	}
	for i := range sent {
		if got, want := scanIn(sent[:i], i/2), openingOf(sent[:i]); got != want {
			t.Fatalf("the first %d bytes give step %d, want %d", i, got, want)
		}
	}
}

func packet(msg byte, body string) []byte {
	p := binary.BigEndian.AppendUint32(nil, uint32(2+len(body)))
	return append(append(append(p, 0), msg), body...)
}

func TestOpeningScanner(t *testing.T) {
	t.Parallel()
	kexinit := packet(20, "algorithms")
	for _, tc := range []struct {
		name string
		in   []byte
		want progress
	}{
		{"nothing", nil, connected},
		{"no end of line", []byte("SSH-2.0-x"), connected},
		{"lines before", []byte("hello\r\nSSX-\nSSH-2.0-x\r\n"), identified},
		{"not at the start", []byte("xSSH-2.0-x\n"), connected},
		{"half a packet", append([]byte("SSH-2.0-x\r\n"), kexinit[:7]...), identified},
		{"a packet", append([]byte("SSH-2.0-x\r\n"), kexinit...), exchanging},
		{"newkeys", append(append([]byte("SSH-2.0-x\r\n"), kexinit...), packet(21, "")...), keyed},
		{"impossible length", append([]byte("SSH-2.0-x\r\n"), 0xff, 0xff, 0xff, 0xff, 0, 20), identified},
		{"length below two", append(append([]byte("SSH-2.0-x\r\n"), 0, 0, 0, 1, 0, 21), packet(21, "")...), identified},
	} {
		if got := scanIn(tc.in); got != tc.want {
			t.Errorf("%s: step %d, want %d", tc.name, got, tc.want)
		}
		for i := range tc.in {
			if got := scanIn(tc.in, i); got != tc.want {
				t.Errorf("%s cut at %d: step %d, want %d", tc.name, i, got, tc.want)
			}
		}
	}
}

func FuzzOpeningScanner(f *testing.F) {
	f.Add([]byte("SSH-2.0-x\r\n\x00\x00\x00\x06\x04\x14abcd\x00\x00\x00\x02\x00\x15"), uint16(3), uint16(14))
	f.Add([]byte("junk\nSSH-\n\x00\x00\x00\x02\x00\x15"), uint16(9), uint16(0))
	f.Fuzz(func(t *testing.T, b []byte, cut1, cut2 uint16) {
		want := openingOf(b)
		if got := scanIn(b, int(cut1), int(cut2)); got != want {
			t.Fatalf("cut at %d, %d: step %d, want %d", cut1, cut2, got, want)
		}
	})
}
