package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// readBufBytes is the read tool's buffer: the most of one line it holds
// at a time. With the output (readMaxBytes) it bounds the memory of a read,
// whatever the size of the file or of its lines.
const readBufBytes = 64 * 1024

// toolRead shows lines of a text file: from line offset (1-based), at
// most limit lines and readMaxBytes bytes. A line that alone does not fit
// is shown in parts: the note names the byte column to continue from, and
// a read with that column starts inside the line. The file is streamed,
// never held whole, so a 300 MB line costs what 50 KiB does.
func toolRead(fl *files, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Path   string `json:"path"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
		Column int    `json:"column"`
	}
	if err := toolpolicy.DecodeArgs(raw, &a); err != nil {
		return ToolResult{}, err
	}
	p, pl, err := fl.resolve(a.Path)
	if err != nil {
		return ToolResult{Path: pl.Canon}, err
	}
	canon := pl.Canon
	res := ToolResult{Path: canon}
	f, fi, err := p.openRegular(canon)
	if err != nil {
		if fi != nil && fi.IsDir() {
			return res, fmt.Errorf("%s is a directory; use ls", a.Path)
		}
		return res, confine.FileError(a.Path, err)
	}
	defer f.Close()
	offset, column := max(a.Offset, 1), max(a.Column, 1)
	limit := a.Limit
	if limit <= 0 || limit > readMaxLines {
		limit = readMaxLines
	}
	br := bufio.NewReaderSize(f, readBufBytes)
	line := 1
	for ; line < offset; line++ {
		ok, err := skipLine(br)
		if err != nil {
			return res, confine.FileError(a.Path, err)
		}
		if !ok {
			return res, fmt.Errorf("%s has %d lines; offset %d is past the end", a.Path, line-1, offset)
		}
	}
	if column > 1 {
		n, err := skipInLine(br, column-1)
		if err != nil {
			return res, confine.FileError(a.Path, err)
		}
		if n < column-1 {
			return res, fmt.Errorf("line %d of %s has %d bytes; column %d is past its end", line, a.Path, n, column)
		}
		// A column inside a UTF-8 sequence starts at the next character.
		for {
			b, err := br.Peek(1)
			if err != nil || utf8.RuneStart(b[0]) {
				break
			}
			br.Discard(1)
			column++
		}
	}

	var out bytes.Buffer
	col := column // byte column of the current line's next byte
	lines := 0    // lines shown up to their end
	note := ""
	for {
		if lines == limit {
			if _, err := br.Peek(1); err == nil {
				note = fmt.Sprintf("[Output cut at line %d of %s. Continue with offset %d.]", line-1, a.Path, line)
			}
			break
		}
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 && bytes.IndexByte(chunk, 0) >= 0 {
			return res, fmt.Errorf("%s looks binary (it contains NUL bytes)", a.Path)
		}
		if room := readMaxBytes - out.Len(); len(chunk) > room {
			if col == 1 && out.Len() > 0 {
				// The next line does not fit after the others: it starts
				// the next read, where it gets the whole output.
				note = fmt.Sprintf("[Output cut at line %d of %s. Continue with offset %d.]", line-1, a.Path, line)
				break
			}
			n := room
			for n > 0 && !utf8.RuneStart(chunk[n]) {
				n--
			}
			out.Write(chunk[:n])
			note = fmt.Sprintf("[Line %d of %s is too long to show at once; shown up to column %d. Continue with offset %d and column %d.]",
				line, a.Path, col+n-1, line, col+n)
			break
		}
		out.Write(chunk)
		switch {
		case err == nil: // the line's end
			lines++
			line++
			col = 1
			continue
		case errors.Is(err, bufio.ErrBufferFull):
			col += len(chunk)
			continue
		case err == io.EOF:
			if len(chunk) > 0 {
				lines++ // a last line without a newline
			}
		default:
			return res, confine.FileError(a.Path, err)
		}
		break
	}
	if offset > 1 && column == 1 && lines == 0 && out.Len() == 0 && note == "" {
		return res, fmt.Errorf("%s has %d lines; offset %d is past the end", a.Path, offset-1, offset)
	}
	body := out.String()
	if !utf8.ValidString(body) {
		body = strings.ToValidUTF8(body, "\uFFFD")
	}
	res.FullRead = offset == 1 && column == 1 && note == ""
	if note != "" {
		body += "\n" + note
	}
	res.Text = body
	return res, nil
}

// skipLine reads past one line, holding no more of it than the reader's
// buffer. It reports whether there was a line to skip.
func skipLine(br *bufio.Reader) (bool, error) {
	seen := false
	for {
		chunk, err := br.ReadSlice('\n')
		seen = seen || len(chunk) > 0
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			return seen, nil
		default:
			return false, err
		}
	}
}

// skipInLine discards up to n bytes of the current line, stopping before
// its newline, and returns how many it discarded.
func skipInLine(br *bufio.Reader, n int) (int, error) {
	done := 0
	for done < n {
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err == io.EOF {
				return done, nil
			} else if err != nil {
				return done, err
			}
		}
		buf, _ := br.Peek(min(br.Buffered(), n-done))
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			br.Discard(i)
			return done + i, nil
		}
		br.Discard(len(buf))
		done += len(buf)
	}
	return done, nil
}

// isNotRegular reports whether err refused a file for its type.
func isNotRegular(err error) bool {
	var nr *fsutil.NotRegularError
	return errors.As(err, &nr)
}
