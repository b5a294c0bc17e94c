// Package capbuf holds a buffer that keeps the first bytes written to it
// and counts the rest as over: a child process's output is read whole
// (its pipe never blocks it) while the memory it can take stays bounded.
package capbuf

import "bytes"

// Buffer keeps the first Max bytes written to it; Over reports that more
// came. Writes never fail, so a command's copy from its pipe runs to the
// end.
type Buffer struct {
	Max  int
	buf  bytes.Buffer
	over bool
}

// New returns a Buffer that keeps max bytes.
func New(max int) *Buffer { return &Buffer{Max: max} }

func (b *Buffer) Write(p []byte) (int, error) {
	room := b.Max - b.buf.Len()
	if room < len(p) {
		b.over = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Bytes returns what was kept.
func (b *Buffer) Bytes() []byte { return b.buf.Bytes() }

// Over reports whether more than Max bytes were written.
func (b *Buffer) Over() bool { return b.over }
