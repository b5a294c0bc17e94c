package sessionimport

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/pi-tui/pi-tui/internal/lineread"
)

// eachLine reads the lines of path from byte offset from, as a stream: a
// line longer than max is read to its end without being kept, reported,
// and skipped. fn gets each line with its number (counted from the start
// of the file: firstLine is the number of the line at from). Only lines ended by "\n" are
// passed: a last line without one may still be being written, so it is
// left for a later import, and end is the offset after the last line
// passed.
func eachLine(ctx context.Context, path string, from int64, firstLine, max int, problem func(line int, msg string), fn func(line int, text []byte) error) (end int64, next int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return from, firstLine, err
	}
	defer f.Close()
	if from > 0 {
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			return from, firstLine, err
		}
	}
	r := bufio.NewReaderSize(f, 64<<10)
	end = from
	for n := firstLine; ; n++ {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return end, n, err
			}
		}
		before := end
		line, tooLong, rerr := lineread.Next(r, max)
		if rerr == io.EOF {
			// Unterminated: not passed, not counted as read.
			return end, n, nil
		}
		if rerr != nil {
			return end, n, rerr
		}
		if tooLong {
			pos, _ := f.Seek(0, io.SeekCurrent)
			end = pos - int64(r.Buffered())
			problem(n, fmt.Sprintf("the line is %s long, more than %s; skipped", size(end-before), size(int64(max))))
			continue
		}
		end += int64(len(line)) + 1
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return end, n + 1, err
		}
	}
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
