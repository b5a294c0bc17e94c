package sshserver

import "encoding/binary"

// openingScanner follows what a client sends before its key exchange
// ends, to tell how far it has got (preauth.go): its identification line,
// as golang.org/x/crypto/ssh reads it (the first line that starts with
// "SSH-"; lines before it are ignored, RFC 4253 section 4.2), then its
// packets, which are in the clear until its NEWKEYS (RFC 4253 section
// 6): of each it reads the length and the message number. It never
// fails: on a packet length the library would refuse it stops, and the
// library closes the connection.
type openingScanner struct {
	step    progress // connected, identified, exchanging or keyed
	stopped bool     // an impossible packet length: nothing more to follow

	// Before the identification line: the current line.
	col   int  // bytes of it seen so far
	isSSH bool // it starts with "SSH-"

	// After it: the current packet.
	head [6]byte // length (4), padding length, message number
	got  int     // bytes of head seen so far
	left uint32  // bytes of the packet after head still to come
}

const (
	msgNewKeys = 21 // SSH_MSG_NEWKEYS
	// maxPacketLength is the largest packet length golang.org/x/crypto/ssh
	// accepts.
	maxPacketLength = 256 << 10
)

// done reports whether there is nothing more to follow.
func (o *openingScanner) done() bool { return o.step == keyed || o.stopped }

// feed scans b, the next bytes from the client, and returns the step
// reached.
func (o *openingScanner) feed(b []byte) progress {
	const prefix = "SSH-"
	for len(b) > 0 && o.step == connected {
		c := b[0]
		b = b[1:]
		switch {
		case c == '\n' && o.isSSH:
			o.step = identified
		case c == '\n':
			o.col = 0
		case o.col < len(prefix) && c != prefix[o.col]:
			o.col = len(prefix) // not an identification line
		default:
			o.isSSH = o.isSSH || o.col == len(prefix)-1
			o.col++
		}
	}
	for len(b) > 0 && !o.done() {
		if o.got < len(o.head) {
			n := copy(o.head[o.got:], b)
			o.got += n
			b = b[n:]
			if o.got < len(o.head) {
				break
			}
			length := binary.BigEndian.Uint32(o.head[:4])
			if length < 2 || length > maxPacketLength {
				o.stopped = true
				break
			}
			o.left = length - 2 // the padding length and message number are in head
		}
		n := min(uint32(len(b)), o.left)
		o.left -= n
		b = b[n:]
		if o.left == 0 {
			o.got = 0
			if o.head[5] == msgNewKeys {
				o.step = keyed
			} else {
				o.step = max(o.step, exchanging)
			}
		}
	}
	return o.step
}
