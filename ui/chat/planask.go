package chat

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// The plan question (docs/adr/0058-plan-mode.md): asked when a plan-mode
// turn of this program's ends with a plan. The user must be able to read
// the whole plan before enter runs it, so the question is a bar the chat
// draws under the transcript, which gets smaller, rather than a dialog
// floating over it; and the transcript's scroll keys work while it is
// open, at once (reading never answers). It is still a layer on the
// shell's stack, which draws nothing over the body: the stack gives it
// the keys, holds them for the quiet period as for every guarded
// question (text typed meanwhile goes on to the input beneath), and its
// Help and Title are what ? shows.

// planKeys are the question's keys, as data: the question handles, its
// bar and its help show the same bindings.
var planKeys = struct {
	Run, Keep                            key.Binding
	Up, Down, PageUp, PageDown, Top, End key.Binding
}{
	Run:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run it")),
	Keep:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "keep planning")),
	Up:       key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "scroll the transcript up a line")),
	Down:     key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "scroll down a line")),
	PageUp:   key.NewBinding(key.WithKeys("pgup", "shift+up"), key.WithHelp("pgup", "scroll up half a screen")),
	PageDown: key.NewBinding(key.WithKeys("pgdown", "shift+down"), key.WithHelp("pgdn", "scroll down half a screen")),
	Top:      key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "the transcript's first line")),
	End:      key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "its last line")),
}

// PlanQuestionHelp is the plan question's keys, as its help shows them
// (the key table in docs/keys.md is checked against it).
func PlanQuestionHelp() [][]key.Binding {
	k := planKeys
	return [][]key.Binding{{k.Run, k.Keep}, {k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.End}}
}

const (
	planTitle = "The plan is ready: run it?"
	planBody  = "Run it: plan mode ends and the plan goes to the agent as your next message, under your permission mode. " +
		"Keep planning: plan mode stays on; type what to change."
)

// planAsk is the plan question. p is the chat's planner, whose
// transcript it scrolls and whose chat draws it (bar); run runs the plan.
type planAsk struct {
	common.DialogLayer
	p       *planner
	quiet   *common.Quiet
	run     func() tea.Cmd
	ignored int // keys ignored while holding, said on the bar
}

// askPlan puts the question; run runs the plan when the user says so.
func (p *planner) askPlan(run func() tea.Cmd) tea.Cmd {
	p.closeAsk()
	p.ask = &planAsk{p: p, quiet: common.NewQuiet(p.ui), run: run}
	return p.ui.Push(p.ask)
}

// closeAsk takes the open question away unanswered (the chat left its
// session).
func (p *planner) closeAsk() {
	if p.ask != nil {
		p.ask.close()
	}
}

// lines is the open question as the chat draws it under the transcript,
// width cells wide; none while no question is open.
func (p *planner) lines(width int) []string {
	if p.ask == nil {
		return nil
	}
	return p.ask.bar(width)
}

// close takes the question off the stack and out of the chat.
func (q *planAsk) close() {
	if q.p.ask == q {
		q.p.ask = nil
	}
	q.p.ui.Close(q)
}

// Init starts the quiet period's timer.
func (q *planAsk) Init() tea.Cmd { return q.quiet.Start() }

// Holding reports whether the question still ignores keys that answer
// (common.Guarded).
func (q *planAsk) Holding() bool { return q.quiet.Holding() }

func (q *planAsk) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case common.QuietMsg:
		return q, q.quiet.Update(msg)
	case tea.KeyMsg:
		if q.scroll(msg) {
			return q, nil // reading, never answering: at once
		}
		if q.quiet.Holding() {
			q.ignored++
			return q, nil
		}
		switch {
		case key.Matches(msg, planKeys.Run):
			q.close()
			return q, q.run()
		case key.Matches(msg, planKeys.Keep):
			q.close()
		}
	}
	return q, nil
}

// scroll moves the transcript behind the question for a scroll key and
// reports whether msg was one.
func (q *planAsk) scroll(msg tea.KeyMsg) bool {
	tr, k := q.p.tr, planKeys
	page := max(q.p.trHeight()/2, 1)
	switch {
	case key.Matches(msg, k.Up):
		tr.Scroll(1)
	case key.Matches(msg, k.Down):
		tr.Scroll(-1)
	case key.Matches(msg, k.PageUp):
		tr.Scroll(page)
	case key.Matches(msg, k.PageDown):
		tr.Scroll(-page)
	case key.Matches(msg, k.Top):
		tr.ScrollTop()
	case key.Matches(msg, k.End):
		tr.ScrollBottom()
	default:
		return false
	}
	return true
}

// View draws nothing over the body: the chat draws the question as a bar
// under its transcript (bar), so the plan stays in view.
func (q *planAsk) View(width, height int) string { return "" }

// Title names the question on the help screen.
func (q *planAsk) Title() string { return planTitle }

// Help lists the question's keys.
func (q *planAsk) Help() [][]key.Binding { return PlanQuestionHelp() }

// bar is the question as the chat draws it under the transcript, width
// cells wide: a rule with the question, what the answers do (wrapped,
// never cut), whether it takes keys yet, and its keys.
func (q *planAsk) bar(width int) []string {
	st := q.p.ui
	w := max(width, 20)
	head := "── " + planTitle + " "
	head += strings.Repeat("─", max(w-ansi.StringWidth(head), 0))
	lines := []string{st.DialogHead.Render(head)}
	lines = append(lines, strings.Split(dialog.Paragraph(st, planBody, w), "\n")...)
	var state string
	if q.quiet.Holding() {
		state = "⏸ keys ignored until you stop typing…"
		if q.ignored > 0 {
			state += fmt.Sprintf(" (%s ignored)", common.Plural(q.ignored, "key"))
		}
		state = st.Warn.Render(state)
	} else {
		state = st.OK.Render("▶ ready: answer with a key")
	}
	k := planKeys
	keys := []string{state,
		st.Key.Render(k.Run.Help().Key) + " " + k.Run.Help().Desc,
		st.Key.Render(k.Keep.Help().Key) + " " + k.Keep.Help().Desc,
		st.Key.Render(pair(k.Up, k.Down)+" "+pair(k.PageUp, k.PageDown)+" "+pair(k.Top, k.End)) + " read the plan"}
	return append(lines, strings.Split(st.R.NewStyle().Width(w).Render(strings.Join(keys, " · ")), "\n")...)
}

// pair names two keys as one: "pgup/pgdn".
func pair(a, b key.Binding) string { return a.Help().Key + "/" + b.Help().Key }
