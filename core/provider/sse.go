package provider

import (
	"bytes"
	"errors"
	"io"
)

// maxSSELine bounds one line of an event stream. A longer line is an
// error rather than an ever-growing buffer.
const maxSSELine = 8 << 20

// errLineTooLong reports a line longer than maxSSELine.
var errLineTooLong = errors.New("an event-stream line is longer than 8 MiB")

// sseReader reads Server-Sent Events. It keeps one read buffer and two
// reused field buffers, so reading a stream allocates only when a line is
// longer than anything seen before. Fields other than event and data (id,
// retry, unknown ones) and comments are skipped.
type sseReader struct {
	r      io.Reader
	buf    []byte
	pos    int  // start of unread bytes in buf
	end    int  // end of valid bytes in buf
	scan   int  // bytes after pos already searched for a line end
	max    int  // longest allowed line
	skipLF bool // the last line ended in CR; a following LF belongs to it
	bom    bool // the leading byte-order mark was handled
	err    error

	typ     []byte
	data    []byte
	hasData bool
}

func newSSEReader(r io.Reader, max int) *sseReader {
	if max <= 0 {
		max = maxSSELine
	}
	size := 32 << 10
	if size > max+1 {
		size = max + 1
	}
	return &sseReader{r: r, buf: make([]byte, size), max: max}
}

// Next returns the next event's type and data. Both slices stay valid
// only until the next call. At the end of the stream it returns io.EOF;
// an event whose last data line was complete but which lacks the closing
// blank line is still returned first, while a final unterminated line is
// dropped as incomplete.
func (s *sseReader) Next() (typ, data []byte, err error) {
	s.typ, s.data, s.hasData = s.typ[:0], s.data[:0], false
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && s.hasData {
				s.hasData = false
				return s.typ, s.data, nil
			}
			return nil, nil, err
		}
		if len(line) == 0 {
			if s.hasData {
				s.hasData = false
				return s.typ, s.data, nil
			}
			s.typ = s.typ[:0]
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, line[len(line):]
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if s.hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			s.hasData = true
		case "event":
			s.typ = append(s.typ[:0], value...)
		}
	}
}

// readLine returns the next complete line without its terminator (LF,
// CR or CRLF). The slice points into the read buffer.
func (s *sseReader) readLine() ([]byte, error) {
	if s.err == errLineTooLong {
		return nil, s.err
	}
	for {
		if s.skipLF && s.pos < s.end {
			if s.buf[s.pos] == '\n' {
				s.pos++
			}
			s.skipLF = false
		}
		if !s.bom {
			// A UTF-8 byte-order mark may open the stream.
			const bom = "\xEF\xBB\xBF"
			n := s.end - s.pos
			if n < 3 && s.err == nil && string(s.buf[s.pos:s.end]) == bom[:n] {
				s.fill()
				continue
			}
			if n >= 3 && string(s.buf[s.pos:s.pos+3]) == bom {
				s.pos += 3
			}
			s.bom = true
		}
		if s.pos < s.end && !s.skipLF {
			b := s.buf[s.pos+s.scan : s.end]
			i := bytes.IndexByte(b, '\n')
			lim := b
			if i >= 0 {
				lim = b[:i]
			}
			if j := bytes.IndexByte(lim, '\r'); j >= 0 {
				i = j
			}
			if i >= 0 {
				i += s.scan
				line := s.buf[s.pos : s.pos+i]
				if i > s.max {
					s.err = errLineTooLong
					return nil, s.err
				}
				next := s.pos + i + 1
				if s.buf[s.pos+i] == '\r' {
					if next < s.end {
						if s.buf[next] == '\n' {
							next++
						}
					} else {
						s.skipLF = true
					}
				}
				s.pos, s.scan = next, 0
				return line, nil
			}
			s.scan = s.end - s.pos
			if s.scan > s.max {
				s.err = errLineTooLong
				return nil, s.err
			}
		}
		if s.err != nil {
			// A final line without a terminator is incomplete: drop it.
			s.pos, s.end, s.scan = 0, 0, 0
			return nil, s.err
		}
		s.fill()
	}
}

// fill reads more bytes, first moving unread bytes to the front and
// growing the buffer (up to the line bound) when it is full.
func (s *sseReader) fill() {
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.pos, s.end = 0, n
	}
	if s.end == len(s.buf) {
		size := 2 * len(s.buf)
		if size > s.max+2 {
			size = s.max + 2
		}
		if size <= len(s.buf) {
			s.err = errLineTooLong
			return
		}
		nb := make([]byte, size)
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := s.r.Read(s.buf[s.end:])
		if n < 0 || n > len(s.buf)-s.end {
			s.err = errors.New("the event-stream reader returned an invalid count")
			return
		}
		s.end += n
		if err != nil {
			s.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	s.err = io.ErrNoProgress
}
