package pisession

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// maxFirstMessage bounds the first user message kept in a summary.
const maxFirstMessage = 1024

// Summary describes one session file in a listing.
type Summary struct {
	Path          string
	ID            string // from the header
	Cwd           string
	Created       string // the header's ISO timestamp
	ParentSession string
	Name          string // the latest session_info's name
	// FirstMessage is the text of the first user message in the file (at
	// most 1 KiB), as pi's session picker shows it.
	FirstMessage string
	Messages     int // message entries, every branch counted, as pi counts
	Entries      int
	// LastActivity is pi's "modified": the newest user or assistant
	// message's time, else the header's time, else ModTime.
	LastActivity time.Time
	ModTime      time.Time // the file's
	Size         int64
	// Problem says in one line what is wrong with the file, or is "".
	// Broken files (Broken true) cannot be opened; the others open with
	// the warnings Session.Warnings lists.
	Problem string
	Broken  bool
	// Custom holds, for each type Options.SummaryCustom names, the data of
	// the file's last entries of that type (at most maxKeptCustom, each at
	// most maxKeptCustomBytes), in file order.
	Custom map[string][]json.RawMessage
}

// Index remembers summaries so that listing a folder rereads only the
// files that changed. A summary is valid for exactly the file size and
// modification time it was made from. Everything in an index can be rebuilt
// from the files, so an implementation may forget anything at any time.
type Index interface {
	Get(path string, size int64, modTime time.Time) (Summary, bool)
	Put(s Summary)
}

// List summarises the session files (*.jsonl) of one folder, newest
// activity first. A file that is not a session, is damaged or is too large
// to open is listed with Broken and a one-line Problem (one too large with
// what it holds all the same), and the others are listed as usual;
// nothing is written to any session file. idx may be nil. A missing folder
// lists nothing.
func List(ctx context.Context, dir string, idx Index, opts Options) ([]Summary, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	out := make([]Summary, 0, len(des))
	var todo []int // indices into out that need reading
	for _, de := range des {
		name := de.Name()
		if !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		path := filepath.Join(dir, name)
		fi, err := os.Stat(path) // follows links, as pi's stat does
		if err != nil {
			out = append(out, Summary{Path: path, Broken: true, Problem: oneLine(err.Error())})
			continue
		}
		if !fi.Mode().IsRegular() {
			out = append(out, Summary{Path: path, Broken: true, ModTime: fi.ModTime(), Problem: "not a regular file; it was not opened"})
			continue
		}
		if idx != nil {
			if s, ok := idx.Get(path, fi.Size(), fi.ModTime()); ok {
				out = append(out, s)
				continue
			}
		}
		out = append(out, Summary{Path: path, Size: fi.Size(), ModTime: fi.ModTime()})
		todo = append(todo, len(out)-1)
	}
	if err := summariseAll(ctx, out, todo, opts); err != nil {
		return nil, err
	}
	if idx != nil {
		for _, i := range todo {
			idx.Put(out[i])
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if !out[a].LastActivity.Equal(out[b].LastActivity) {
			return out[a].LastActivity.After(out[b].LastActivity)
		}
		return out[a].Path < out[b].Path
	})
	return out, nil
}

// listWorkers bounds the files read at once. Each reader holds at most a
// line (Options.MaxLineBytes) and a hash per entry up to
// Options.MaxEntries, so this bounds a listing's memory on any machine.
const listWorkers = 4

// summariseAll reads the files out[todo...] on a few goroutines.
func summariseAll(ctx context.Context, out []Summary, todo []int, opts Options) error {
	workers := min(runtime.GOMAXPROCS(0), listWorkers, len(todo))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				summarise(ctx, &out[i], opts)
			}
		}()
	}
	var err error
feed:
	for _, i := range todo {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err == nil {
		// A summary cut short says "context canceled"; it must not be
		// listed or kept in the index.
		err = ctx.Err()
	}
	return err
}

// Summarise reads one session file into a summary (see List). The file is
// read as a stream, so its size does not matter; one too large to open is
// summarised all the same, marked Broken with the reason.
func Summarise(ctx context.Context, path string, opts Options) Summary {
	s := Summary{Path: path}
	if fi, err := os.Stat(path); err == nil {
		s.Size, s.ModTime = fi.Size(), fi.ModTime()
	}
	summarise(ctx, &s, opts)
	return s
}

// A summary keeps the data of only the last few custom entries of a kept
// type, each bounded, so that a planted file repeating one a million times
// costs a listing no more than a real one. The caller reads the latest.
const (
	maxKeptCustom      = 8
	maxKeptCustomBytes = 64 << 10
)

// keepCustom adds a custom entry's data to the summary when its type is
// one of kept. raw is the stream's buffer, so the data is copied.
func keepCustom(sum *Summary, raw []byte, kept []string) {
	ct, _ := stringValue(findMember(raw, "customType"))
	if !slices.Contains(kept, ct) {
		return
	}
	data := findMember(raw, "data")
	if data == nil || len(data) > maxKeptCustomBytes {
		return
	}
	if sum.Custom == nil {
		sum.Custom = map[string][]json.RawMessage{}
	}
	list := sum.Custom[ct]
	if len(list) == maxKeptCustom {
		list = append(list[:0], list[1:]...)
	}
	sum.Custom[ct] = append(list, slices.Clone(data))
}

// messageMillis is the time of a message for "last activity": its numeric
// timestamp, else the entry's.
func messageMillis(msg, entryTS []byte) int64 {
	if v := findMember(msg, "timestamp"); v != nil {
		// What decoding it into a float64 gives, without reflection: null
		// leaves 0, a number in range is parsed, anything else fails.
		switch {
		case isNull(v):
			return 0
		case v[0] == '-' || v[0] >= '0' && v[0] <= '9':
			if f, err := strconv.ParseFloat(string(v), 64); err == nil {
				return int64(f)
			}
		}
	}
	ts, _ := stringValue(entryTS)
	if t, err := ParseTimestamp(ts); err == nil {
		return t.UnixMilli()
	}
	return -1
}

// firstText returns at most limit bytes of a message's text (its string
// content, or its text parts joined by spaces, as pi's picker shows it)
// without decoding more of a long message than that.
func firstText(msg []byte, limit int) string {
	c := findMember(msg, "content")
	if len(c) == 0 {
		return ""
	}
	if c[0] == '"' {
		return unquotePrefix(c, limit)
	}
	if c[0] != '[' {
		return ""
	}
	var b strings.Builder
	n := 0
	for i := skipWS(c, 1); i < len(c) && c[i] != ']' && b.Len() < limit; {
		end, err := skipValue(c, i)
		if err != nil {
			break
		}
		el := c[i:end]
		if t := findMember(el, "type"); t != nil && rawStringEquals(t, PartText) {
			if tx := findMember(el, "text"); tx != nil {
				if n > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(unquotePrefix(tx, limit-b.Len()))
				n++
			}
		}
		i = skipWS(c, end)
		if i < len(c) && c[i] == ',' {
			i = skipWS(c, i+1)
		}
	}
	return clip(b.String(), limit)
}

// unquotePrefix decodes at most about limit bytes of a raw JSON string,
// cutting a long one (never inside an escape) before decoding it.
func unquotePrefix(raw []byte, limit int) string {
	if limit <= 0 {
		return ""
	}
	if len(raw) <= 6*limit+2 {
		s, _ := stringValue(raw)
		return clip(s, limit)
	}
	p, i := 1+6*limit, 1
	for i < p {
		step := 1
		if raw[i] == '\\' {
			step = 2
			if raw[i+1] == 'u' {
				step = 6
			}
		}
		if i+step > p {
			break
		}
		i += step
	}
	cut := make([]byte, 0, i+1)
	cut = append(append(cut, raw[:i]...), '"')
	s, _ := stringValue(cut)
	return clip(s, limit)
}

// clip cuts s to at most n bytes on a character boundary. A cut is a copy:
// a summary lives as long as the listing, and a slice would keep the whole
// decoded text (up to about six times n) alive with it.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n])
}

// oneLine keeps the first line of a message.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
