// Package lineread reads lines of bounded length from input that pi-tui
// does not control (an rpc caller, an authorized_keys file): memory stays
// bounded by the limit whatever the input holds, and an overlong line is
// skipped as a whole, so the lines after it are read as usual.
package lineread

import (
	"bufio"
	"bytes"
)

// Next returns the next line without its "\n" (a "\r" before it is left
// to the caller). A line whose text (without "\r\n" or "\n") is longer
// than max is read to its end and dropped: line is nil and tooLong true.
// At the end of the input err is io.EOF, with the last line if it had no
// line end.
func Next(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, frag...)
			if len(line) > max+2 { // room for "\r\n"
				line, tooLong = nil, true
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(bytes.TrimSuffix(line, []byte("\r"))) > max {
			line, tooLong = nil, true
		}
		return line, tooLong, err
	}
}
