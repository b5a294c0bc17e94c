package sessionlist

import (
	"bufio"
	"bytes"
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// listFilter narrows the session list: by title and first message at once,
// and by content (every line of each file) as a search off the UI
// goroutine finds it.
type listFilter struct {
	on      bool // typing a filter
	input   textinput.Model
	seq     int                // the content search in flight
	content map[string]bool    // session id → the query is in its file
	cancel  context.CancelFunc // stops the search in flight
}

// contentMsg is a content search's answer for the query of seq.
type contentMsg struct {
	seq  int
	hits map[string]bool
}

func (f *listFilter) start() {
	f.on = true
	f.input = textinput.New()
	f.input.Prompt = "/ "
	f.input.Placeholder = "title or content"
	f.input.CharLimit = 200
	f.input.Focus()
	f.content = nil
}

func (f *listFilter) stop() {
	if f.cancel != nil {
		f.cancel()
		f.cancel = nil
	}
	*f = listFilter{}
}

// text is the query, lower case ("" when none).
func (f *listFilter) text() string {
	if !f.on {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(f.input.Value()))
}

// matches reports whether a session shows under the filter.
func (f *listFilter) matches(s sessions.Summary) bool {
	q := f.text()
	if q == "" {
		return true
	}
	return strings.Contains(strings.ToLower(s.Title), q) || strings.Contains(strings.ToLower(s.FirstMessage), q) || f.content[s.ID]
}

// search starts a content search for the current query over the files of
// list, cancelling the one before; it ends with ctx (the program's).
func (f *listFilter) search(ctx context.Context, list []sessions.Summary) tea.Cmd {
	if f.cancel != nil {
		f.cancel()
	}
	f.seq++
	f.content = nil
	q := f.text()
	if q == "" {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	f.cancel = cancel
	seq := f.seq
	files := make(map[string]string, len(list))
	for _, s := range list {
		if !s.Broken {
			files[s.ID] = s.Path
		}
	}
	return func() tea.Msg {
		hits := map[string]bool{}
		for id, path := range files {
			if ctx.Err() != nil {
				return nil
			}
			if fileHas(ctx, path, []byte(q)) {
				hits[id] = true
			}
		}
		return contentMsg{seq: seq, hits: hits}
	}
}

// fileHas reports whether a session file holds q (lower case) in any line,
// ignoring case. It reads line by line, so a huge file costs time, not
// memory; a FIFO or a device is skipped.
func fileHas(ctx context.Context, path string, q []byte) bool {
	f, _, err := fsutil.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for n := 0; sc.Scan(); n++ {
		if n%256 == 0 && ctx.Err() != nil {
			return false
		}
		if n > 0 && bytes.Contains(bytes.ToLower(sc.Bytes()), q) { // not the header (its cwd)
			return true
		}
	}
	return false
}
