package pisession

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// A listing reads each file as a stream: one line at a time through a
// buffer that is read into again (one block, or the longest line up to
// Options.MaxLineBytes), applying the same rules as Open (classifyLine),
// and keeping per entry only what the tree checks need (idGraph). So a
// summary says what Open would say about the file (the same counts,
// problem and brokenness), in memory bounded by the line limit and
// Options.MaxEntries, whatever the file's size. A file too large to open
// is still summarised, and marked Broken with the reason.

// ctxCheckLines is how often (in lines) a long read looks at its context.
const ctxCheckLines = 4096

// summaryScan is the state of one summarising read.
type summaryScan struct {
	opts  Options
	sum   *Summary
	hdr   Header
	size  int64 // the file's, as read
	lines int32 // lines read, the header's included, as Open numbers them
	// warnings as Open would collect them: how many, and the first.
	warns     int
	firstWarn string
	last      int64
	g         *idGraph // nil once the file is known to be too large to open
	tooLarge  error
}

func (sc *summaryScan) warn(msg string) {
	if sc.warns == 0 {
		sc.firstWarn = msg
	}
	sc.warns++
}

// summarise fills in sum (whose Path, Size and ModTime are set) from the
// file. What would make Open fail makes the summary Broken, its Problem the
// reason in one line.
func summarise(ctx context.Context, sum *Summary, opts Options) {
	opts = opts.withDefaults()
	sc := summaryScan{opts: opts, sum: sum, last: -1}
	if err := sc.read(ctx); err != nil {
		*sum = Summary{Path: sum.Path, Size: sum.Size, ModTime: sum.ModTime, Broken: true, LastActivity: sum.ModTime,
			Problem: oneLine(err.Error())}
	}
}

func (sc *summaryScan) read(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.OpenFile(sc.sum.Path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err != nil {
		return err
	}
	size := fi.Size()
	sc.size = size
	if size > sc.opts.MaxFileBytes {
		sc.tooLarge = &tooLargeError{size: size, maxBytes: sc.opts.MaxFileBytes}
	} else {
		sc.g = newIDGraph()
	}
	lr := newLineReader(f, 0, size, sc.opts.MaxLineBytes)
	lr.reuse = true
	for {
		if sc.lines%ctxCheckLines == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		l, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if l.terminated {
			sc.lines++
			if err := sc.line(l); err != nil {
				return err
			}
			continue
		}
		// A last line without its newline: taken when it is a whole entry,
		// as Open takes it; a fatal error is not (Open ignores it too).
		if l.tooLong || isBlank(l.b) {
			break
		}
		if validLine(l.b) != nil {
			sc.warn(tornText(sc.lines+1, len(l.b)))
			break
		}
		sc.lines++
		_ = sc.line(l)
	}
	if sc.hdr.Raw == nil {
		return noHeaderError(size)
	}
	return sc.finish(ctx, f, size)
}

// line takes one line: the header, or an entry to count.
func (sc *summaryScan) line(l rawLine) error {
	s := scanned{l: l}
	kind, id, err := classifyLine(&s, sc.lines, sc.opts.MaxLineBytes, &sc.hdr, sc)
	if kind == lineHeader {
		sc.hdr.Raw = []byte{} // read; the line's bytes are the buffer's, soon overwritten
	}
	if kind != lineEntry {
		return err
	}
	sum, f := sc.sum, &s.f
	sum.Entries++
	if g := sc.g; g != nil {
		if sum.Entries > sc.opts.MaxEntries {
			sc.g = nil
			sc.tooLarge = &tooLargeError{size: sc.size, maxCount: sc.opts.MaxEntries}
		} else if prev := g.add(g.hash(id), g.hash(parentText(f)), sc.lines); prev >= 0 {
			if sc.warns > 0 {
				sc.warns++ // only the first is shown; a file may repeat an id 100,000 times
			} else {
				sc.warn(reusedIDText(sc.lines, string(id), g.line[prev]))
			}
		}
	}
	switch f.typ {
	case TypeSessionInfo:
		var si SessionInfo
		if json.Unmarshal(l.b, &si) == nil {
			sum.Name = trimSpace(si.Name)
		}
	case TypeCustom:
		if len(sc.opts.SummaryCustom) > 0 {
			keepCustom(sum, l.b, sc.opts.SummaryCustom)
		}
	case TypeMessage:
		sum.Messages++
		if f.role != roleUser && f.role != roleAssistant {
			break
		}
		msg := findMember(l.b, "message")
		if t := messageMillis(msg, f.ts); t > sc.last {
			sc.last = t
		}
		if sum.FirstMessage == "" && f.role == roleUser {
			sum.FirstMessage = firstText(msg, maxFirstMessage)
		}
	}
	return nil
}

// finish applies what Open does once the lines are read (the format
// version, the tree checks) and fills in the rest of the summary.
func (sc *summaryScan) finish(ctx context.Context, f *os.File, size int64) error {
	sum, h := sc.sum, sc.hdr
	if h.Version < Version {
		sc.warn(olderVersionText(h.Version))
	} else if h.Version > Version {
		sc.warn(newerVersionText(h.Version))
	}
	dangling := 0
	firstDangling := ""
	// A version 1 file's entries get fresh ids, each the child of the one
	// before (see migrateInMemory): its tree is a line, whatever it says.
	if sc.g != nil && h.Version >= 2 {
		parent, isDangling := sc.g.parents()
		if j := cycleIn(len(parent), func(i int32) int32 { return parent[i] }); j >= 0 {
			line := sc.g.line[j]
			id, _ := sc.idsAt(ctx, f, size, line)
			return fmt.Errorf("%s: %w", cycleText(id, line), ErrDamaged)
		}
		for i := range parent {
			if isDangling(i) {
				if dangling == 0 {
					line := sc.g.line[i]
					id, parentID := sc.idsAt(ctx, f, size, line)
					firstDangling = danglingText(id, line, parentID)
				}
				if dangling++; dangling == maxDangling {
					break
				}
			}
		}
	}
	sc.g = nil
	sum.ID, sum.Cwd, sum.Created, sum.ParentSession = h.ID, h.Cwd, h.Timestamp, h.ParentSession
	switch {
	case sc.last > 0:
		sum.LastActivity = time.UnixMilli(sc.last)
	default:
		if t, err := ParseTimestamp(h.Timestamp); err == nil {
			sum.LastActivity = t
		} else {
			sum.LastActivity = sum.ModTime
		}
	}
	if sc.tooLarge != nil {
		sum.Broken, sum.Problem = true, sc.tooLarge.Error()
		return nil
	}
	first := sc.firstWarn
	if sc.warns == 0 {
		first = firstDangling
	}
	if n := sc.warns + dangling; n > 0 {
		sum.Problem = oneLine(first)
		if n > 1 {
			sum.Problem += fmt.Sprintf(" (and %d more)", n-1)
		}
	}
	return nil
}

// idsAt reads the id and parent id of the entry on a line again (a
// warning names them; the graph holds only their hashes). The file is
// read from the start, as only a damaged file needs this; "?" stands for
// what cannot be read.
func (sc *summaryScan) idsAt(ctx context.Context, f *os.File, size int64, line int32) (id, parentID string) {
	lr := newLineReader(f, 0, size, sc.opts.MaxLineBytes)
	lr.reuse = true
	for k := int32(1); ctx.Err() == nil; k++ {
		l, ok, err := lr.next()
		if err != nil || !ok {
			break
		}
		if k != line {
			continue
		}
		s := scanned{l: l}
		var hdr Header
		hdr.Raw, hdr.Version = []byte{}, 2 // read the line as an entry
		kind, b, _ := classifyLine(&s, line, sc.opts.MaxLineBytes, &hdr, discard{})
		if kind != lineEntry {
			break
		}
		return string(b), string(parentText(&s.f))
	}
	return "?", "?"
}

// discard is a warner that forgets.
type discard struct{}

func (discard) warn(string) {}
