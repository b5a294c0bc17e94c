package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/filesearch"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/reviewview"
	"github.com/pi-tui/pi-tui/ui/transcript"
)

// arrivedMsg says entries another writer (pi, another pi-tui) appended to
// the open session were read (the broker's events.SessionAppended);
// refreshedMsg carries the branch reread.
type arrivedMsg struct {
	id   string
	sess *sessions.Session
}

type refreshedMsg struct {
	id      string
	entries []sessions.Entry
	sess    *sessions.Session
	// read numbers the reread (Model.reads): only the latest one asked
	// for is shown.
	read int
}

// arrivalPoll is how often an idle open session looks for lines other
// writers appended (a stat, and a read only when the file grew).
const arrivalPoll = time.Second

// watchArrivals polls the session's file, off the update loop, until ctx
// ends. The poll is for other processes (pi, another pi-tui), whose
// appends nothing in this one hears of; what it reads, like the arrivals
// an append of ours finds, the session announces on the broker
// (events.SessionAppended), so every program showing it rereads, this one
// included, through its event switch.
func (m *Model) watchArrivals(ctx context.Context, id string, s *sessions.Session) tea.Cmd {
	if s == nil {
		return nil
	}
	return func() tea.Msg {
		t := time.NewTicker(arrivalPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
				s.Refresh(ctx)
			}
		}
	}
}

// reread reads the open session's branch again, off the update loop, for
// a turn another program runs on it (the session object is shared with
// the runtime, so its appends are no arrivals).
func (m *Model) reread() tea.Cmd { return m.rereadOf(m.open) }

// rereadOf reads session s's branch again, off the update loop. Rereads
// are commands, and commands end in any order: the one a turn's start
// asked for (read before the answer was stored) may reach the view after
// the one its end asked for. Each is numbered as it is asked for, and
// only the latest one is shown (refreshedMsg), so an older read never
// takes back what a newer one showed. Dropping a late read loses
// nothing: what a reread is for is announced, once stored, by an event
// (agent_end, an arrival), and the read that event asks for is later.
func (m *Model) rereadOf(s *sessions.Session) tea.Cmd {
	if s == nil {
		return nil
	}
	m.reads++
	id, n, ss, ctx := m.sid, m.reads, m.d.Sessions, m.ctx
	return func() tea.Msg {
		if live := ss.Live(ctx, id); live != nil {
			s = live // the branch the runtime continues
		}
		return refreshedMsg{id: id, entries: s.Path(), sess: s, read: n}
	}
}

// catchUp rereads session s, just opened, if it moved on (its leaf is no
// longer leaf) between the read that opened it and the moment the view
// began to get its events (feed.show, before this command runs): a turn
// that stored its answer and ended in between said so only to the
// programs showing the session then, which this one was not yet.
func (m *Model) catchUp(s *sessions.Session, leaf string) tea.Cmd {
	read := m.rereadOf(s)
	if read == nil {
		return nil
	}
	return func() tea.Msg {
		if s.Leaf() == leaf {
			return nil // nothing was stored since: the events tell the rest
		}
		return read()
	}
}

func (m *Model) notice(text string) { m.tr.Notice(text, false) }

// event applies one runtime event of this session.
func (m *Model) event(ev tea.Msg) tea.Cmd {
	switch a := ev.(type) {
	case approvalMsg:
		if m.sid == "" {
			return nil // no session shown: no question of one is put
		}
		return m.asks.Show(a.ask, m.sid, m.project.Name)
	case approvalGoneMsg:
		if text := m.asks.Gone(a.res); text != "" {
			m.tr.Notice(text, true)
		}
		m.dialogGone(a.res)
		return nil
	}
	if c, ok := ev.(events.ProjectsChanged); ok {
		return m.projectChanged(c)
	}
	e, ok := ev.(events.Event)
	if !ok || e.Session() != m.sid || m.sid == "" {
		return nil
	}
	switch e := e.(type) {
	case events.ChangesUpdated:
		// An undo or redo, here or in another program: the cards and an
		// open Review screen read the changes again.
		return tea.Batch(m.review.load(), reviewview.Stale(m.sid))
	case events.PlanChanged:
		m.plan.changed(e)
	case events.SessionAppended:
		// Another writer's entries were read: show what is stored.
		if s := m.open; s != nil {
			return func() tea.Msg { return arrivedMsg{id: e.SessionID, sess: s} }
		}
	case events.Asked:
		return m.askDialog(e) // an extension's question (approvals come as approvalMsg)
	case events.Notice, events.ExtensionStatus:
		m.extEvent(e)
	case events.RuntimeLaunched, events.RuntimeReused, events.RuntimeRetired:
		if _, gone := e.(events.RuntimeRetired); gone {
			m.ext.runtimeGone()
		}
		rts, sid := m.d.Runtime, m.sid
		if m.rt.runtimeEvent(e, func() runtimes.State { return rts.State(sid) }) {
			return m.loadUsage() // the context window of the new runtime, or of the model it took
		}
	case events.AgentStarted:
		m.rt.state = runtimes.StateWorking
		if m.turn != turnPrompt {
			// Another program's turn: its prompt is stored by now.
			return m.reread()
		}
	case events.Retrying:
		m.tr.Retry(fmt.Sprintf("%s, retry %d of %d in %s", e.Reason, e.Attempt, e.MaxAttempts, waitText(e.Delay.Milliseconds())))
	case events.TextDelta:
		m.tr.Stream(e.Text, "")
	case events.ThinkingDelta:
		m.tr.Stream("", e.Text)
	case events.MessageEnded:
		// What arrived stays, marked partial when the answer broke off;
		// the reason is said once, by agent_end.
		m.tr.EndAnswer(e.Text, e.Error != "")
		if e.Usage != nil && e.Usage.InputTokens > 0 {
			return m.loadUsage() // the totals and the meter move with each answer
		}
	case events.ToolStarted:
		m.tr.SetParams(e.ToolName, e.Params)
		return m.tr.ToolStart(e.ToolCallID, e.ToolName, string(e.Args))
	case events.ToolOutput:
		m.tr.ToolOutput(e.ToolCallID, e.Text, e.Skipped)
	case events.ToolEnded:
		m.tr.ToolEnd(transcript.Result{CallID: e.ToolCallID, Tool: e.ToolName, Path: e.Path, Text: e.Result, IsError: e.IsError,
			ToolMs: e.ToolMs, Preflight: e.Preflight, Delivery: e.Delivery, Change: e.MemoryChange, Files: e.Changes, FilesNote: e.ChangesNote})
	case events.CompactionEnded:
		if e.Error != "" {
			m.failure("compaction failed: " + e.Error)
		} else {
			m.tr.Compaction(e.Summary)
		}
		if m.turn == turnCompact {
			return m.turnEnded() // this program's /compact (not one inside a turn)
		}
	case events.AgentEnded:
		// The turn is over: nothing it asked may still be answered (the
		// core withdrew it; its notice may still be queued).
		m.asks.CloseAll()
		if m.rt.state == runtimes.StateWorking {
			// A prompt refused before its runtime started (no usable
			// pi) ends too, but leaves no runtime: none stays none.
			m.rt.state = runtimes.StateIdle
		}
		m.tr.EndRetry()
		switch {
		case e.StopReason == provider.StopAborted:
			m.tr.Notice("aborted; what arrived is kept", true)
		case e.Error != "":
			m.failure(e.Error)
		}
		if m.turn != turnPrompt {
			// Another program's turn: what it stored replaces what
			// streamed here.
			return tea.Batch(withdrawTurnNotices(), m.reread(), m.loadUsage())
		}
		// Before the queue goes: a queued message continues the planning.
		ask := m.plan.ended(e, m.turn == turnPrompt, len(m.queue) > 0, m.runPlan)
		return tea.Batch(withdrawTurnNotices(), ask, m.loadUsage(), m.turnEnded())
	}
	return nil
}

// The notices a turn says in the status bar; its end takes them back.
const (
	noticeQueued         = "queued: sent when the agent is done"
	noticeAborting       = "aborting…"
	noticeAbortingQueued = "aborting; the queued messages are back in the input"
)

// withdrawTurnNotices clears the status bar's notice if it is one the
// turn said: a refusal the user just got (ctrl+l while the agent worked)
// stays to be read.
func withdrawTurnNotices() tea.Cmd {
	return common.Withdraw(noticeQueued, noticeAborting, noticeAbortingQueued)
}

// failure shows the current turn's error in the transcript, once: a
// background launch may have said it first (prewarmFailed).
func (m *Model) failure(msg string) {
	if m.failed != "" && sameFailure(m.failed, msg) {
		return
	}
	m.failed = msg
	m.ext.withdrawLaunch(msg) // the background launch's notice said it first
	m.notice(errorAdvice(msg))
}

// errorAdvice fits a model error to this screen: advice that names a
// command-line flag names the Session tab's own way instead, and what to
// do is added where the error does not say.
func errorAdvice(msg string) string {
	if strings.Contains(msg, engineFlags) {
		// The engine is chosen in Settings here; the variable still
		// overrides it.
		return strings.ReplaceAll(msg, engineFlags, "choose the builtin engine in Settings (3) › Engine (or set "+runtimes.EnvEngine+"=builtin)")
	}
	if strings.Contains(msg, "--model PROVIDER/ID") {
		return strings.ReplaceAll(msg, "--model PROVIDER/ID", "/model (or Settings › Default model)")
	}
	switch {
	case strings.Contains(msg, "no model is configured"), strings.Contains(msg, "API key"):
		return msg + " (Settings › Default model, or docs/models.md)"
	case strings.Contains(msg, "cannot reach") && !strings.Contains(msg, "check the baseUrl"):
		return msg + " (check the provider's baseUrl in models.json and that the server runs)"
	}
	return msg
}

// engineFlags is how the core's error for an unusable pi names the ways
// to the built-in engine, the command line's first.
const engineFlags = "choose the built-in engine (--engine builtin, " + runtimes.EnvEngine + "=builtin, or Settings)"

// waitText says a retry's wait the way people read it.
func waitText(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%d s", (ms+500)/1000)
}

func (m *Model) chatKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	if cmd, ok := m.in.menuKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Abort):
		if m.inTurn() {
			m.d.Runtime.Abort(m.sid)
			if len(m.queue) > 0 {
				// Queued messages are not sent after an abort; they come back
				// to the input, nothing lost.
				back := m.queue
				if !m.in.empty() {
					back = append(back, m.in.input.Value())
				}
				m.in.set(strings.Join(back, "\n\n"))
				m.queue = nil
				return common.Notice("%s", noticeAbortingQueued)
			}
			return common.Notice("%s", noticeAborting)
		}
		return nil
	case key.Matches(msg, k.Sessions):
		if m.inTurn() {
			return common.Failure(errors.New("the agent is working; press esc to abort it first"))
		}
		m.close()
		m.tab.Show(false)
		return m.tab.List.Reload()
	case key.Matches(msg, k.Tools):
		// An expanded call that changed files shows their diffs too.
		return tea.Batch(m.tr.ToggleTool(m.transcriptHeight()), m.review.loadDiffs())
	case key.Matches(msg, k.ToolPrev, k.ToolNext):
		return m.tr.SelectTool(key.Matches(msg, k.ToolPrev), m.transcriptHeight())
	case key.Matches(msg, k.Thinking):
		m.tr.ToggleThinking()
		return nil
	case key.Matches(msg, k.Level):
		return m.tune.cycle()
	case key.Matches(msg, k.ScrollUp):
		m.tr.Scroll(max(m.transcriptHeight()/2, 1))
		return nil
	case key.Matches(msg, k.ScrollDown):
		m.tr.Scroll(-max(m.transcriptHeight()/2, 1))
		return nil
	}
	cmd, text := m.in.key(msg)
	if text == "" {
		return cmd
	}
	return m.submit(text)
}

// submit sends what the composer handed back: a /command runs; a message
// waits its turn while the agent is busy, else it goes.
func (m *Model) submit(text string) tea.Cmd {
	if strings.HasPrefix(text, "/") {
		return m.command(text)
	}
	if m.inTurn() {
		m.queue = append(m.queue, text)
		return common.Notice("%s", noticeQueued)
	}
	return m.sendWithFiles(text)
}

// send starts a prompt; its events stream back through the feed.
func (m *Model) send(text string) tea.Cmd { return m.sendShown(text, text) }

// sendShown sends text, shown in the transcript as shown (what was typed,
// before its files were attached).
func (m *Model) sendShown(text, shown string) tea.Cmd {
	m.ext.noticesRead()
	m.tr.User(shown)
	m.turn, m.failed = turnPrompt, ""
	rts, ss, id, model, ctx := m.d.Runtime, m.d.Sessions, m.sid, m.tune.spec(), m.ctx
	return m.call(func() tea.Msg {
		if _, err := rts.Prompt(ctx, id, model, text); err != nil && !storedLast(ctx, ss, id, text) {
			// Refused before it was saved (no model, a missing worktree):
			// the message goes back to the input rather than being lost.
			return unsentMsg{id: id, text: text}
		}
		return nil // its agent_end says how it ended
	})
}

// storedLast reports whether the session's branch ends in the user message
// text (the prompt was saved before it failed).
func storedLast(ctx context.Context, ss Sessions, id, text string) bool {
	s, err := ss.Open(ctx, id)
	if err != nil {
		return false
	}
	path := s.Path()
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == sessions.TypeUser {
			return transcript.UserText(path[i]) == text
		}
	}
	return false
}

// attachedMsg carries a message with its @files attached, ready to send.
type attachedMsg struct {
	sid, typed, text string
	report           []filesearch.Attached
}

// sendWithFiles sends text, first attaching (off the UI goroutine) the
// project files it names with @path. Meanwhile the chat counts as
// working, so a further message waits its turn.
func (m *Model) sendWithFiles(text string) tea.Cmd {
	if m.project == nil || len(filesearch.References(text)) == 0 {
		return m.send(text)
	}
	m.turn = turnAttaching
	root, others, sid, ctx := m.project.Root, otherFolders(m.project), m.sid, m.ctx
	return func() tea.Msg {
		out, report := filesearch.AttachIn(ctx, root, others, text, filesearch.DefaultAttachLimits())
		return attachedMsg{sid: sid, typed: text, text: out, report: report}
	}
}

// attached sends a message whose files were attached. The transcript and
// the title show what was typed, and a line says what was attached.
func (m *Model) attached(msg attachedMsg) tea.Cmd {
	if msg.sid != m.sid {
		return nil
	}
	cmd := m.sendShown(msg.text, msg.typed)
	if m.title == msg.text {
		m.title = msg.typed
	}
	var parts []string
	for _, a := range msg.report {
		s := common.VisibleLine(a.Path)
		switch {
		case a.Lines > 0 && a.Note != "":
			s += " (" + common.Plural(a.Lines, "line") + "; " + a.Note + ")"
		case a.Lines > 0:
			s += " (" + common.Plural(a.Lines, "line") + ")"
		default:
			s += " (" + a.Note + ")"
		}
		parts = append(parts, s)
	}
	if len(parts) > 0 {
		m.tr.Notice("attached "+strings.Join(parts, ", "), true)
	}
	return cmd
}

func (m *Model) transcriptHeight() int { return max(m.height-m.in.rows()-3, 3) }

// menuLimit is how many entries the completion menu shows at most: a
// third of the transcript's height.
func (m *Model) menuLimit() int { return max(min(10, m.transcriptHeight()/3), 3) }
