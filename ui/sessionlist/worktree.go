package sessionlist

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	coresession "github.com/pi-tui/pi-tui/core/session"
	"github.com/pi-tui/pi-tui/core/worktree"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// worktrees is the session list's view of its worktree sessions (ADR
// 0029): which sessions have one, and their statuses, read off the UI
// goroutine.
type worktrees struct {
	svc *worktree.Service
	of  worktree.Sessions // verified bindings, and the ones that are invalid
	// stat holds the last statuses read: the list shows them while newer
	// ones are read. One read runs at a time; a reload asked for meanwhile
	// runs after it.
	stat    map[string]worktree.Status
	loading bool
	again   bool
}

// wtStatusMsg carries their statuses.
type wtStatusMsg struct {
	projectID string
	stat      map[string]worktree.Status
}

func (m *Model) loadStatuses() tea.Cmd {
	if len(m.wt.of.Bound) == 0 {
		return nil
	}
	if m.wt.loading {
		m.wt.again = true
		return nil
	}
	m.wt.loading = true
	svc, pid, ctx, of := m.wt.svc, m.project.ID, m.ctx, m.wt.of
	return func() tea.Msg {
		// Always fresh: the agent or the user may have changed any file.
		return wtStatusMsg{projectID: pid, stat: svc.Statuses(ctx, of.Bound, 0)}
	}
}

// updateWorktrees handles the worktree messages; ok is false for others.
func (m *Model) updateWorktrees(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case wtStatusMsg:
		m.wt.loading = false
		if m.project != nil && msg.projectID == m.project.ID {
			m.wt.stat = msg.stat
		}
		if m.wt.again {
			m.wt.again = false
			return m.loadStatuses(), true
		}
		return nil, true
	case wtAskMsg:
		return m.ask(msg), true
	case wtDoneMsg:
		say := common.Notice("%s", msg.text)
		if msg.err != nil {
			say = common.Failure(msg.err)
		}
		// The list (and its worktrees) first, so what the notice says is
		// what the list shows.
		return tea.Sequence(m.loadList(), tea.Batch(say, func() tea.Msg { return common.ProjectsChangedMsg{} })), true
	case wtDiffMsg:
		if msg.err != nil {
			return common.Failure(msg.err), true
		}
		return m.d.UI.Push(newDiffPage(m.d.UI, msg.branch, msg.text)), true
	}
	return nil, false
}

// worktreeCell is what the list shows of a worktree session: its branch,
// * for uncommitted changes and the diff stat, or that its folder is gone.
func (m *Model) worktreeCell(id string) string {
	if _, ok := m.wt.of.Invalid[id]; ok {
		return "  ⚠ worktree binding invalid"
	}
	w, ok := m.wt.of.Bound[id]
	if !ok {
		return ""
	}
	st, ok := m.wt.stat[id]
	switch {
	case !ok:
		return "  ⎇ " + w.Branch
	case st.Missing:
		return "  ⎇ " + w.Branch + " · worktree missing"
	case st.Dirty():
		return "  ⎇ " + w.Branch + " * " + st.Stat()
	}
	return "  ⎇ " + w.Branch + " " + st.Stat()
}

// missingFix is the one-line fix of the selected session's missing
// worktree, or what is wrong with its binding ("" when nothing is).
func (m *Model) missingFix(id string) string {
	if inv, ok := m.wt.of.Invalid[id]; ok {
		return "its worktree binding is invalid, so it works in nothing (" + m.keys.Discard.Help().Key + " unbinds it, deleting nothing; /fork forks it): " + inv.Why
	}
	if st, ok := m.wt.stat[id]; ok && st.Missing {
		return st.Fix
	}
	return ""
}

// newWorktreeSession starts a session in a worktree of its own (w in the
// list, /worktree in a chat).
func (m *Model) newWorktreeSession() tea.Cmd {
	if m.project == nil || m.wt.svc == nil {
		return nil
	}
	svc, sm, pid, ctx := m.wt.svc, m.d.Runtimes.Sessions(), m.project.ID, m.ctx
	return func() tea.Msg {
		s, w, err := svc.NewSession(ctx, sm, pid, "", "")
		if err != nil {
			return openedMsg{err: err}
		}
		return openedMsg{id: s.ID(), sess: s, branch: w.Branch, notice: fmt.Sprintf("working on branch %s (from %s) in %s", w.Branch, w.Base, common.VisibleLine(w.Root))}
	}
}

// wtAskMsg carries what a merge or discard dialog names.
type wtAskMsg struct {
	op    string // "merge" or "discard"
	id    string
	title string
	w     coresession.Worktree
	st    worktree.Status
	err   error
}

// wtDoneMsg says how a merge or discard went.
type wtDoneMsg struct {
	text string
	err  error
}

// wtDiffMsg carries a worktree's diff.
type wtDiffMsg struct {
	branch, text string
	err          error
}

// withSession opens session id in a command and runs fn on it.
func (m *Model) withSession(id string, fn func(ctx context.Context, s *coresession.Session) tea.Msg) tea.Cmd {
	rts, ctx := m.d.Runtimes, m.ctx
	return func() tea.Msg {
		s, err := rts.Session(ctx, id)
		if err != nil {
			return common.NoticeMsg{Text: err.Error(), Error: true}
		}
		return fn(ctx, s)
	}
}

// prepare reads a session's worktree status for the merge or discard
// dialog, which names the uncommitted changes.
func (m *Model) prepare(op, id string) tea.Cmd {
	_, bound := m.wt.of.Bound[id]
	if _, invalid := m.wt.of.Invalid[id]; !bound && !invalid {
		return common.Failure(errors.New("this session has no worktree; w starts a session in one"))
	}
	svc := m.wt.svc
	return m.withSession(id, func(ctx context.Context, s *coresession.Session) tea.Msg {
		st, w, err := svc.Status(ctx, s)
		return wtAskMsg{op: op, id: id, title: worktree.MergeMessage(s), w: w, st: st, err: err}
	})
}

// ask opens the merge or discard dialog; the discard of a binding that
// cannot be verified unbinds it instead.
func (m *Model) ask(msg wtAskMsg) tea.Cmd {
	svc, id := m.wt.svc, msg.id
	if inv := (*worktree.InvalidError)(nil); errors.As(msg.err, &inv) && msg.op == "discard" {
		return m.unbindDialog(inv)
	}
	if msg.err != nil {
		return common.Failure(msg.err)
	}
	if msg.op == "discard" {
		body := worktree.DiscardQuestion(msg.w, msg.st) + "\nThe session stays and works in the project root from then on."
		return m.d.UI.Push(dialog.NewConfirm(m.d.UI, "Discard worktree", common.Visible(body), func() tea.Cmd {
			return m.withSession(id, func(ctx context.Context, s *coresession.Session) tea.Msg {
				w, err := svc.Discard(ctx, s)
				if err != nil {
					return wtDoneMsg{err: err}
				}
				return wtDoneMsg{text: fmt.Sprintf("discarded the worktree and deleted %s", w.Branch)}
			})
		}, "X"))
	}
	if msg.st.Missing {
		return common.Failure(errors.New(msg.st.Fix))
	}
	hint := fmt.Sprintf("merges %s into %s in %s", msg.w.Branch, msg.w.Base, msg.w.Main)
	if msg.st.Dirty() {
		hint = fmt.Sprintf("uncommitted changes in %s are committed with this message first; then it %s",
			worktree.ListSome(msg.st.Changed, 5), hint)
	}
	def := strings.TrimSpace(msg.title) // worktree.MergeMessage: the name, else the first message
	return m.d.UI.Push(dialog.NewPrompt(m.d.UI, "Merge "+msg.w.Branch, common.VisibleLine(hint), def,
		func(v string) string {
			if strings.TrimSpace(v) == "" {
				return "a commit message cannot be empty"
			}
			return ""
		}, func(v string) tea.Cmd {
			return m.withSession(id, func(ctx context.Context, s *coresession.Session) tea.Msg {
				res, w, err := svc.Merge(ctx, s, strings.TrimSpace(v))
				if err != nil {
					return wtDoneMsg{err: err}
				}
				how := "fast-forward"
				if !res.FastForward {
					how = "merge commit"
				}
				return wtDoneMsg{text: fmt.Sprintf("merged %s into %s (%s)", w.Branch, w.Base, how)}
			})
		}))
}

// unbindDialog asks to unbind a session from a worktree binding pi-tui
// cannot verify: nothing is deleted (the folder and branch it names may be
// anyone's), and the session works in the project's main checkout.
func (m *Model) unbindDialog(inv *worktree.InvalidError) tea.Cmd {
	svc, id := m.wt.svc, inv.SessionID
	body := "This session's worktree binding is invalid: " + inv.Why + ".\nUnbind it? Nothing is deleted; the session works in the project's main checkout from then on. (Or fork it with /fork.)"
	return m.d.UI.Push(dialog.NewConfirm(m.d.UI, "Unbind invalid worktree", common.Visible(body), func() tea.Cmd {
		return m.withSession(id, func(ctx context.Context, s *coresession.Session) tea.Msg {
			if _, err := svc.Unbind(ctx, s); err != nil {
				return wtDoneMsg{err: err}
			}
			return wtDoneMsg{text: "unbound: the session works in the project's main checkout; nothing was deleted"}
		})
	}, "X"))
}

// showDiff loads a session's worktree diff for the diff page.
func (m *Model) showDiff(id string) tea.Cmd {
	if inv, ok := m.wt.of.Invalid[id]; ok {
		return common.Failure(inv)
	}
	w, ok := m.wt.of.Bound[id]
	if !ok {
		return common.Failure(errors.New("this session has no worktree; w starts a session in one"))
	}
	svc := m.wt.svc
	return m.withSession(id, func(ctx context.Context, s *coresession.Session) tea.Msg {
		text, err := svc.Diff(ctx, s)
		return wtDiffMsg{branch: w.Branch, text: text, err: err}
	})
}

// diffPage shows a worktree's diff, scrollable, with line numbers of the
// old and the new file in the gutter.
type diffPage struct {
	ui     *common.UI
	branch string
	lines  []string
	vp     viewport.Model
	keys   diffKeys
	w, h   int
}

type diffKeys struct{ Up, Down, PageUp, PageDown, Top, Bottom, Close key.Binding }

func newDiffPage(ui *common.UI, branch, text string) *diffPage {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	p := &diffPage{ui: ui, branch: branch, keys: diffKeys{
		Up: b("↑/k", "up", "up", "k"), Down: b("↓/j", "down", "down", "j"),
		PageUp: b("pgup", "page up", "pgup", "b"), PageDown: b("pgdn/space", "page down", "pgdown", " "),
		Top: b("g", "top", "g", "home"), Bottom: b("G", "bottom", "G", "end"), Close: b("esc/q", "close", "esc", "q"),
	}}
	p.lines = renderDiff(ui, text)
	return p
}

// renderDiff numbers and colours a unified diff. The text comes from the
// repository: its control characters are shown, never sent.
func renderDiff(ui *common.UI, text string) []string {
	if strings.TrimSpace(text) == "" {
		return []string{ui.Dim.Render("No changes against the base yet.")}
	}
	var out []string
	oldN, newN := 0, 0
	num := func(n int) string {
		if n <= 0 {
			return "     "
		}
		return fmt.Sprintf("%5d", n)
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		shown := common.VisibleLine(strings.ReplaceAll(l, "\t", "    "))
		switch {
		case strings.HasPrefix(l, "@@"):
			oldN, newN = hunkStart(l)
			out = append(out, ui.Dim.Render("            "+shown))
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "index "):
			out = append(out, ui.Section.Render("            "+shown))
		case strings.HasPrefix(l, "+"):
			out = append(out, ui.Dim.Render(num(0)+" "+num(newN)+" ")+ui.OK.Render(shown))
			newN++
		case strings.HasPrefix(l, "-"):
			out = append(out, ui.Dim.Render(num(oldN)+" "+num(0)+" ")+ui.Error.Render(shown))
			oldN++
		case strings.HasPrefix(l, " "):
			out = append(out, ui.Dim.Render(num(oldN)+" "+num(newN)+" ")+shown)
			oldN, newN = oldN+1, newN+1
		default:
			out = append(out, "            "+shown)
		}
	}
	return out
}

// hunkStart reads the first old and new line numbers of "@@ -a,b +c,d @@".
func hunkStart(l string) (oldN, newN int) {
	f := strings.Fields(l)
	if len(f) < 3 {
		return 0, 0
	}
	at := func(s string) int {
		s, _, _ = strings.Cut(s[1:], ",")
		n, _ := strconv.Atoi(s)
		return n
	}
	return at(f[1]), at(f[2])
}

func (p *diffPage) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	if km, ok := msg.(tea.KeyMsg); ok {
		k := p.keys
		switch {
		case key.Matches(km, k.Close):
			return p, p.ui.Close(p)
		case key.Matches(km, k.Up):
			p.vp.ScrollUp(1)
		case key.Matches(km, k.Down):
			p.vp.ScrollDown(1)
		case key.Matches(km, k.PageUp):
			p.vp.PageUp()
		case key.Matches(km, k.PageDown):
			p.vp.PageDown()
		case key.Matches(km, k.Top):
			p.vp.GotoTop()
		case key.Matches(km, k.Bottom):
			p.vp.GotoBottom()
		}
	}
	return p, nil
}

func (p *diffPage) View(w, h int) string {
	if w != p.w || h != p.h {
		p.w, p.h = w, h
		p.vp.Width, p.vp.Height = w, max(h-1, 3)
		cut := make([]string, len(p.lines))
		for i, l := range p.lines {
			cut[i] = ansi.Truncate(l, max(w, 20), "…")
		}
		p.vp.SetContent(strings.Join(cut, "\n"))
	}
	return p.ui.Title.Render("Diff · "+p.branch) + p.ui.Dim.Render(fmt.Sprintf("  %s · esc closes", plural(len(p.lines), "line"))) + "\n" + p.vp.View()
}

func (p *diffPage) Title() string { return "Diff · " + p.branch }
func (p *diffPage) Help() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Close}}
}
func (p *diffPage) FullScreen() bool   { return true }
func (p *diffPage) Unsaved() string    { return "" }
func (p *diffPage) CapturesText() bool { return false }
