package chat

import (
	"path/filepath"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/common"
)

// What pi's extensions show outside the turn's text (the pi engine):
// notices (notify, extension_error, an engine's own warnings) in a small
// area above the input that keeps the latest few whole; setStatus texts
// in the state line; setWidget lines above the input; setTitle in the
// header; set_editor_text in the input, when it is empty. A notice is
// read once the user sends their next message, and goes then (pi writes
// one as a line of its chat, which the next turn moves up and away);
// status, widgets and title stay until the extension clears them. All of it
// belongs to the open session and goes when the chat leaves it; what the
// runtime set goes when the runtime ends (its extensions are gone with
// it). Extensions are not pi-tui's: every text is shown with its control
// characters made visible and on one line.

// Bounds of what extensions may take of the chat's screen.
const (
	maxNotices     = 3  // notices kept
	maxNoticeLines = 3  // lines the notices area takes at most
	maxWidgetLines = 5  // widget lines above the input, all widgets together
	maxStatusCells = 40 // cells of one setStatus text in the state line
)

// extState is what the open session's extensions show.
type extState struct {
	status     map[string]string // setStatus: key → text
	widgets    map[string]widget // setWidget: key → lines
	widgetKeys []string          // in the order they were first set
	title      string            // setTitle
	notices    []extNotice       // oldest first, at most maxNotices
	// launchErr is why the background launch failed, while its notice
	// is shown: a prompt failing for the same reason says it in the
	// transcript instead, once.
	launchErr string
}

type extNotice struct{ level, source, text string }

// widget is one setWidget's lines: no more than can ever be shown are
// kept, and how many it had.
type widget struct {
	lines []string
	total int
}

// extEvent applies an extension's notice or display request.
func (m *Model) extEvent(e events.Event) {
	switch e := e.(type) {
	case events.Notice:
		m.ext.notify(e.Level, e.Source, e.Text)
	case events.ExtensionStatus:
		switch e.Method {
		case "setStatus":
			if e.Text == "" {
				delete(m.ext.status, e.Key)
				return
			}
			if m.ext.status == nil {
				m.ext.status = map[string]string{}
			}
			m.ext.status[e.Key] = e.Text
		case "setWidget":
			if len(e.Lines) == 0 {
				delete(m.ext.widgets, e.Key)
				m.ext.widgetKeys = slices.DeleteFunc(m.ext.widgetKeys, func(k string) bool { return k == e.Key })
				return
			}
			if m.ext.widgets == nil {
				m.ext.widgets = map[string]widget{}
			}
			if _, ok := m.ext.widgets[e.Key]; !ok {
				m.ext.widgetKeys = append(m.ext.widgetKeys, e.Key)
			}
			m.ext.widgets[e.Key] = widget{lines: slices.Clone(e.Lines[:min(len(e.Lines), maxWidgetLines)]), total: len(e.Lines)}
		case "setTitle":
			m.ext.title = e.Text
		case "set_editor_text":
			// The user's own text is never replaced: an extension's text
			// goes only into an empty input.
			if !m.in.empty() {
				m.ext.notify("info", "pi-tui", "an extension offered text for the input; your text was kept")
				return
			}
			m.in.set(e.Text)
		}
	}
}

// runtimeGone forgets what the runtime's extensions set: they ended
// with it. Notices stay to be read.
func (x *extState) runtimeGone() {
	x.status, x.widgets, x.widgetKeys, x.title = nil, nil, nil, ""
}

// noticesRead takes the notices away: the user sent their next message
// under them. A failed launch's notice goes too; the prompt says its
// error itself if it fails again.
func (x *extState) noticesRead() { x.notices, x.launchErr = nil, "" }

func (x *extState) notify(level, source, text string) {
	x.notices = append(x.notices, extNotice{level: level, source: source, text: text})
	if n := len(x.notices); n > maxNotices {
		x.notices = slices.Delete(x.notices, 0, n-maxNotices)
	}
}

// line is a notice as one text: its level's mark, who says it (an
// extension's file name, not its whole path) and what.
func (n extNotice) line() string {
	mark := "·"
	switch n.level {
	case "error":
		mark = "✗"
	case "warning":
		mark = "!"
	}
	text := common.VisibleLine(strings.TrimSpace(n.text))
	if src := sourceName(n.source); src != "" {
		text = src + ": " + text
	}
	return mark + " " + text
}

// sourceName shortens a notice's source to what names it: an
// extension's file name (its folder when the file is index.ts).
func sourceName(src string) string {
	if !strings.ContainsAny(src, `/\`) {
		return common.VisibleLine(src)
	}
	base := filepath.Base(src)
	if strings.HasPrefix(base, "index.") {
		base = filepath.Base(filepath.Dir(src)) + "/" + base
	}
	return common.VisibleLine(base)
}

// noticeLines draws the notices area at width w: the newest notices
// that fit in maxNoticeLines, each whole and wrapped at spaces; an
// older one that does not fit is left out, never cut. Only a newest
// notice longer than the whole area is shortened, at the end of a
// sentence where one ends in it.
func (x *extState) noticeLines(st *common.UI, w int) []string {
	var out []string
	for i := len(x.notices) - 1; i >= 0; i-- {
		n := x.notices[i]
		lines := strings.Split(ansi.Wrap(n.line(), w, ""), "\n")
		if len(out)+len(lines) > maxNoticeLines {
			if len(out) == 0 {
				lines = shorten(n.line(), w, maxNoticeLines)
			} else {
				break
			}
		}
		style := st.Dim.Render
		switch n.level {
		case "error":
			style = st.Error.Render
		case "warning":
			style = st.Warn.Render
		}
		for j, l := range lines {
			lines[j] = style(l)
		}
		out = append(lines, out...)
	}
	return out
}

// shorten fits text in rows lines of width w: up to the last sentence
// end that fits, else the last word, marked with "…".
func shorten(text string, w, rows int) []string {
	lines := strings.Split(ansi.Wrap(text, w, ""), "\n")
	if len(lines) <= rows {
		return lines
	}
	kept := strings.Join(lines[:rows], " ")
	kept = ansi.Truncate(kept, w*rows-2, "")
	if i := strings.LastIndexAny(kept, ".!?"); i > len(kept)/2 {
		kept = kept[:i+1]
	} else if i := strings.LastIndexByte(kept, ' '); i > 0 {
		kept = kept[:i]
	}
	return strings.Split(ansi.Wrap(kept+" …", w, ""), "\n")
}

// widgetLines draws the widgets above the input: one line each, at
// most maxWidgetLines in all, the last saying how many more there are.
func (x *extState) widgetLines(st *common.UI, w int) []string {
	var out []string
	total := 0
	for _, k := range x.widgetKeys {
		for _, l := range x.widgets[k].lines {
			out = append(out, ansi.Truncate(common.VisibleLine(l), w, "…"))
		}
		total += x.widgets[k].total
	}
	if total > maxWidgetLines {
		out = out[:min(len(out), maxWidgetLines-1)]
		more := total - len(out)
		out = append(out, st.Dim.Render("… "+common.Plural(more, "more widget line")))
	}
	return out
}

// statusParts are the setStatus texts for the state line, by key.
func (x *extState) statusParts() []string {
	keys := make([]string, 0, len(x.status))
	for k := range x.status {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, ansi.Truncate(common.VisibleLine(x.status[k]), maxStatusCells, "…"))
	}
	return out
}

// lines are the lines the extensions take above the input, w cells
// wide.
func (x *extState) lines(st *common.UI, w int) []string {
	return append(x.noticeLines(st, w), x.widgetLines(st, w)...)
}

// prewarmedMsg says a background launch failed; the first prompt will
// try again and say why, so this is only a notice.
type prewarmedMsg struct {
	sid string
	err error
}

// prewarmFailed says why the background launch failed, in the notices
// area, with the advice fitted to this screen; unless the first prompt
// failed for the same reason first and the transcript says it already.
func (m *Model) prewarmFailed(msg prewarmedMsg) {
	text := msg.err.Error()
	if msg.sid != m.sid || (m.failed != "" && sameFailure(m.failed, text)) {
		return
	}
	m.ext.launchErr = text
	m.ext.notify("warning", "pi-tui", launchNotice(text))
}

// launchNotice is the notice of a background launch that failed.
func launchNotice(err string) string {
	return "the runtime could not be started in the background: " + errorAdvice(err)
}

// withdrawLaunch takes back the notice of the failed background launch
// when msg, which the transcript is about to show, says the same.
func (x *extState) withdrawLaunch(msg string) {
	if x.launchErr == "" || !sameFailure(x.launchErr, msg) {
		return
	}
	text := launchNotice(x.launchErr)
	x.notices = slices.DeleteFunc(x.notices, func(n extNotice) bool { return n.source == "pi-tui" && n.text == text })
	x.launchErr = ""
}

// sameFailure reports whether two errors say the same (one may wrap the
// other).
func sameFailure(a, b string) bool { return strings.Contains(a, b) || strings.Contains(b, a) }

// prewarm launches the session's runtime in the background, so the
// first prompt does not wait for it: through Deps.Prewarm, else the
// runtime's own Prewarm.
func (m *Model) prewarm(sid string) tea.Cmd {
	fn := m.d.Prewarm
	if fn == nil {
		if m.d.Runtime == nil {
			return nil
		}
		fn = m.d.Runtime.Prewarm
	}
	ctx := m.ctx
	return func() tea.Msg {
		err := fn(ctx, sid)
		if err == nil || ctx.Err() != nil {
			return nil
		}
		return prewarmedMsg{sid: sid, err: err}
	}
}
