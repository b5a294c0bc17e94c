package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// Limits of grep's output per match.
const (
	grepLineBytes   = 500  // lines up to this long are shown whole
	grepBefore      = 100  // context kept before a match in a longer line
	grepAfter       = 200  // and after it
	grepBinaryProbe = 8192 // a NUL byte in the first bytes marks a binary file
)

// grepRun is one grep call: the pattern, the output, and what could not
// be searched, so "No matches." is only said when nothing was skipped.
type grepRun struct {
	ctx     context.Context
	p       *project
	re      *regexp.Regexp
	out     limitedBuffer
	matches int
	br      *bufio.Reader
	skipped map[string][]string // reason → files
}

func toolGrep(ctx context.Context, fl *files, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
		Glob    string `json:"glob"`
	}
	if err := toolpolicy.DecodeArgs(raw, &a); err != nil {
		return ToolResult{}, err
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return ToolResult{}, fmt.Errorf("pattern is not a valid regular expression: %v", err)
	}
	if _, err := path.Match(a.Glob, ""); err != nil {
		return ToolResult{}, fmt.Errorf("glob is not valid: %v", err)
	}
	p, pl, err := fl.resolve(a.Path)
	if err != nil {
		return ToolResult{Path: pl.Canon}, err
	}
	canon := pl.Canon
	res := ToolResult{Path: canon}
	g := &grepRun{ctx: ctx, p: p, re: re, br: bufio.NewReaderSize(nil, readBufBytes), skipped: map[string][]string{}}
	start := p.fsName(canon)
	fi, err := p.r.Stat(p.rel(canon))
	if err != nil {
		return res, confine.FileError(a.Path, err)
	}
	if !fi.IsDir() {
		// One file, named: anything but a regular file is an error.
		f, _, err := confine.OpenRegular(p.r, start)
		if err != nil {
			return res, confine.FileError(a.Path, err)
		}
		g.file(p.shown(start), f)
	} else {
		err := walk(ctx, p, start, func(name string, d fs.DirEntry) bool {
			if a.Glob != "" {
				if ok, _ := path.Match(a.Glob, d.Name()); !ok {
					return true
				}
			}
			switch t := d.Type(); {
			case t&fs.ModeSymlink != 0:
				return true // links are not followed; their targets inside are searched where they are
			case !t.IsRegular():
				g.skip("not a regular file", p.shown(name))
				return true
			}
			f, _, err := confine.OpenRegular(p.r, name)
			switch {
			case isNotRegular(err):
				g.skip("not a regular file", p.shown(name))
			case err != nil:
				g.skip("unreadable", p.shown(name))
			default:
				g.file(p.shown(name), f)
			}
			return !g.out.cut
		}, func(name string) { g.skip("unreadable", p.shown(name)) })
		if err != nil {
			return res, err
		}
	}
	res.Text = g.out.String()
	if g.matches == 0 {
		res.Text = "No matches."
		if len(g.skipped) > 0 {
			res.Text = "No matches in the files searched."
		}
	}
	if g.out.cut {
		res.Text += "\n[Matches cut at 50 KiB; narrow the pattern or the path.]"
	}
	if note := g.skippedNote(); note != "" {
		res.Text += "\n" + note
	}
	return res, nil
}

func (g *grepRun) skip(reason, name string) { g.skipped[reason] = append(g.skipped[reason], name) }

// skippedNote names what was not searched, a few files per reason.
func (g *grepRun) skippedNote() string {
	if len(g.skipped) == 0 {
		return ""
	}
	var parts []string
	for _, reason := range []string{"binary", "not a regular file", "unreadable"} {
		names := g.skipped[reason]
		if len(names) == 0 {
			continue
		}
		shown := names[:min(len(names), 3)]
		more := ""
		if len(names) > 3 {
			more = fmt.Sprintf(" and %d more", len(names)-3)
		}
		parts = append(parts, fmt.Sprintf("%d %s (%s%s)", len(names), reason, strings.Join(shown, ", "), more))
	}
	return "[Not searched: " + strings.Join(parts, "; ") + ".]"
}

// file searches one open regular file line by line. Lines that fit the
// buffer are matched in memory; a longer line is streamed through the
// regular expression, so no line is too long to search and memory stays
// at the buffer's size.
func (g *grepRun) file(name string, f *os.File) {
	defer f.Close()
	br := g.br
	br.Reset(f)
	if head, _ := br.Peek(grepBinaryProbe); bytes.IndexByte(head, 0) >= 0 {
		g.skip("binary", name)
		return
	}
	var pos int64 // file offset of the current line
	for n := 1; ; n++ {
		if g.ctx.Err() != nil || g.out.cut {
			return
		}
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err != nil {
				return // end of file (or an error: nothing more to read)
			}
		}
		buf, _ := br.Peek(br.Buffered())
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			var err error
			buf, err = br.Peek(br.Size())
			if i = bytes.IndexByte(buf, '\n'); i < 0 && err == nil {
				// No newline in a full buffer: a long line.
				consumed, lineLen, loc := g.streamLine(br)
				if loc != nil {
					g.printLong(name, n, f, pos, lineLen, loc)
				}
				pos += consumed
				continue
			}
		}
		line, step := buf, len(buf)
		if i >= 0 {
			line, step = buf[:i], i+1
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if loc := g.re.FindIndex(line); loc != nil {
			g.printLine(name, n, line, loc)
		}
		br.Discard(step)
		pos += int64(step)
	}
}

func (g *grepRun) printLine(name string, n int, line []byte, loc []int) {
	g.matches++
	if len(line) <= grepLineBytes {
		fmt.Fprintf(&g.out, "%s:%d: %s\n", name, n, line)
		return
	}
	from, to := window(line, loc)
	fmt.Fprintf(&g.out, "%s:%d: %s [line of %d bytes; match at column %d]\n", name, n, snippet(line, from, to), len(line), loc[0]+1)
}

// printLong prints a match in a line that was streamed: the text around it
// is read back from the file (a bounded read at the line's offset).
func (g *grepRun) printLong(name string, n int, f *os.File, pos int64, lineLen int, loc []int) {
	g.matches++
	from := max(0, loc[0]-grepBefore)
	buf := make([]byte, min(loc[1], loc[0]+grepAfter)+grepAfter-from)
	m, _ := f.ReadAt(buf, pos+int64(from))
	text := buf[:min(m, max(0, lineLen-from))]
	// Whole characters only.
	for len(text) > 0 && !utf8.RuneStart(text[0]) {
		text, from = text[1:], from+1
	}
	for j := len(text) - 1; j >= 0 && j >= len(text)-utf8.UTFMax; j-- {
		if utf8.RuneStart(text[j]) {
			if !utf8.FullRune(text[j:]) {
				text = text[:j]
			}
			break
		}
	}
	shown := strings.ToValidUTF8(string(text), "\uFFFD")
	if from > 0 {
		shown = "…" + shown
	}
	if from+len(text) < lineLen {
		shown += "…"
	}
	fmt.Fprintf(&g.out, "%s:%d: %s [line of %d bytes; match at column %d; read it with offset %d and column %d]\n",
		name, n, shown, lineLen, loc[0]+1, n, from+1)
}

// window picks the part of a long line to show around a match.
func window(line []byte, loc []int) (int, int) {
	from := max(0, loc[0]-grepBefore)
	to := min(len(line), min(loc[1], loc[0]+grepAfter)+grepAfter)
	return from, to
}

// snippet returns line[from:to] as valid text, cut on character
// boundaries, with … where the line goes on.
func snippet(line []byte, from, to int) string {
	for from > 0 && from < len(line) && !utf8.RuneStart(line[from]) {
		from++
	}
	for to < len(line) && to > from && !utf8.RuneStart(line[to]) {
		to--
	}
	s := strings.ToValidUTF8(string(line[from:to]), "\uFFFD")
	if from > 0 {
		s = "…" + s
	}
	if to < len(line) {
		s += "…"
	}
	return s
}

// streamLine runs the pattern over the current line as a stream of runes
// and consumes the line with its newline. It returns the bytes consumed,
// the line's length without its newline, and the match's byte range in
// the line (nil for none).
func (g *grepRun) streamLine(br *bufio.Reader) (consumed int64, lineLen int, loc []int) {
	lr := &lineRunes{ctx: g.ctx, br: br}
	loc = g.re.FindReaderIndex(lr)
	lr.drain()
	return lr.consumed, int(lr.consumed) - lr.eol, loc
}

// lineRunes reads one line as runes for regexp.FindReaderIndex: the line
// ends (io.EOF) at its newline, so anchors keep their per-line meaning.
// It holds nothing of the line: memory stays at the reader's buffer.
type lineRunes struct {
	ctx      context.Context
	br       *bufio.Reader
	consumed int64 // bytes taken from br, the line end included
	eol      int   // bytes of the line end: 0, 1 (\n) or 2 (\r\n)
	done     bool
	count    int
}

func (l *lineRunes) ReadRune() (rune, int, error) {
	if l.done {
		return 0, 0, io.EOF
	}
	// An abort stops a long scan too.
	if l.count++; l.count%(1<<16) == 0 && l.ctx.Err() != nil {
		l.done = true
		return 0, 0, io.EOF
	}
	r, size, err := l.br.ReadRune()
	if err != nil {
		l.done = true
		return 0, 0, io.EOF
	}
	l.consumed += int64(size)
	switch r {
	case '\n':
		l.done, l.eol = true, 1
		return 0, 0, io.EOF
	case '\r':
		if next, _ := l.br.Peek(1); len(next) == 1 && next[0] == '\n' {
			l.br.Discard(1)
			l.consumed++
			l.done, l.eol = true, 2
			return 0, 0, io.EOF
		}
	}
	return r, size, nil
}

// drain consumes the rest of the line the pattern did not need.
func (l *lineRunes) drain() {
	for !l.done {
		chunk, err := l.br.ReadSlice('\n')
		l.consumed += int64(len(chunk))
		switch {
		case err == nil:
			l.done, l.eol = true, 1
			if len(chunk) > 1 && chunk[len(chunk)-2] == '\r' {
				l.eol = 2
			}
		case err != bufio.ErrBufferFull:
			l.done = true
		}
	}
}
