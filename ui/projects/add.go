package projects

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/pathfield"
)

// addDialog asks for a folder, an optional name and whether to trust it.
// Memory is deliberately not asked for (ADR 0234): a hint says it can be
// added later from the row menu. A folder such as / or the home folder
// takes a second step: the dialog says that the agent's file tools will
// reach everything below it and adds it only on "y". A folder that looks
// like a project whose folder is missing takes another: relocate that
// project here (r), or add a new one (n).
type addDialog struct {
	common.DialogLayer
	host  *host.Host
	st    *common.UI
	path  pathfield.Field
	name  textinput.Model
	trust bool
	field int // 0 path, 1 name, 2 trust
	// broad is the second question's sentence while it is asked.
	broad string
	// moved is the missing project the folder looks like, while the
	// question whether to relocate it is asked.
	moved *movedMsg

	errText string
	busy    bool
	keys    addKeys
	// then, if set, runs with the id of the project added (or relocated
	// here); see AddDialog.
	then func(id string) tea.Cmd
	// folderOf, when set, makes this the dialog that adds a folder to
	// that project (ADR 0085): no moved-project step, the folder rules.
	folderOf *registry.Project
}

type addKeys struct {
	Complete, Next, Prev, Toggle, Submit, Cancel key.Binding
	// On the trust field y and n set it (Toggle's partners) and enter
	// adds the project (Next's partner there).
	TrustOn, TrustOff, Finish key.Binding
	// The second step for a broad folder.
	Confirm, Back key.Binding
	// The step for a folder that looks like a missing project.
	Relocate, AddNew key.Binding
}

func newAddDialog(h *host.Host, st *common.UI) *addDialog {
	n := textinput.New()
	n.Prompt = ""
	n.Placeholder = "(the folder's name)"
	n.CharLimit = 128
	return &addDialog{host: h, st: st, path: pathfield.New(pathfield.Options{Home: h.Places.Home}), name: n, keys: addKeys{
		Complete: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete folder")),
		// tab on the folder field completes (Complete comes first); on the
		// others it goes on, as ↓ does.
		Next:     key.NewBinding(key.WithKeys("down", "enter", "tab"), key.WithHelp("↓/enter", "next field")),
		Prev:     key.NewBinding(key.WithKeys("up", "shift+tab"), key.WithHelp("↑", "previous field")),
		Toggle:   key.NewBinding(key.WithKeys(" "), key.WithHelp("space/y/n", "trust")),
		TrustOn:  key.NewBinding(key.WithKeys("y")),
		TrustOff: key.NewBinding(key.WithKeys("n")),
		Finish:   key.NewBinding(key.WithKeys("enter")),
		Submit:   key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "add")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Confirm:  key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "add anyway")),
		Back:     key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "back")),
		Relocate: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "relocate it here")),
		AddNew:   key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "add as a new project")),
	}}
}

// newFolderDialog asks for a folder to add to p, its name and its trust.
func newFolderDialog(h *host.Host, st *common.UI, p registry.Project) *addDialog {
	d := newAddDialog(h, st)
	d.folderOf = &p
	d.name.Placeholder = "(the folder's base name)"
	return d
}

// title is the dialog's heading.
func (d *addDialog) title() string {
	if d.folderOf != nil {
		return "Add a folder to " + common.VisibleLine(d.folderOf.Name)
	}
	return "Add a project"
}

// movedMsg says that the folder looks like a missing project.
type movedMsg struct {
	match registry.Match
	path  string // the folder, expanded
}

// broadMsg asks the second question: the folder is too broad.
type broadMsg struct{ sentence string }

type addedMsg struct {
	id      string
	name    string
	folder  string // the folder added, when a folder was
	created bool
	others  int // other projects with the same name
	err     error
}

// SelectMsg asks the Projects tab to put the cursor on a project.
type SelectMsg struct{ ID string }

// goOn is what follows adding project id, if the opener asked for more.
func (d *addDialog) goOn(id string) tea.Cmd {
	if d.then == nil || id == "" {
		return nil
	}
	return d.then(id)
}

func (d *addDialog) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case pathfield.Msg:
		if e, ok := d.path.Apply(msg); ok && e != "" {
			d.errText = e
		}
		return d, nil
	case broadMsg:
		d.busy = false
		d.broad = msg.sentence
		return d, nil
	case movedMsg:
		d.busy = false
		d.moved = &msg
		return d, nil
	case relocatedMsg:
		d.busy = false
		if msg.err != nil && msg.res.Project.ID == "" {
			d.moved = nil
			d.errText = msg.err.Error()
			return d, nil
		}
		d.st.Close(d)
		return d, tea.Batch(relocatedNotice(d.host, d.moved.match.Project.Name, msg), d.goOn(msg.res.Project.ID))
	case addedMsg:
		d.busy = false
		if msg.err != nil {
			d.errText = msg.err.Error()
			return d, nil
		}
		note := "added " + msg.name
		switch {
		case msg.folder != "":
			note = "added the folder " + msg.folder + " to " + msg.name
		case !msg.created:
			note = msg.name + " was already registered"
		}
		if msg.others > 0 {
			others := fmt.Sprintf("%d other projects are", msg.others)
			if msg.others == 1 {
				others = "1 other project is"
			}
			note += fmt.Sprintf("; note: %s also named %s, so use ids or paths for them in scripts", others, msg.name)
		}
		d.st.Close(d)
		id := msg.id
		return d, tea.Batch(func() tea.Msg { return SelectMsg{ID: id} }, common.Notice("%s", note), d.goOn(id))
	case tea.KeyMsg:
		return d, d.key(msg)
	}
	return d, nil
}

func (d *addDialog) key(msg tea.KeyMsg) tea.Cmd {
	k := d.keys
	if d.broad != "" {
		switch {
		case key.Matches(msg, k.Confirm):
			d.broad = ""
			return d.add(true, false)
		case key.Matches(msg, k.Back):
			d.broad = ""
			d.focus(0)
		}
		return nil
	}
	if d.moved != nil && !d.busy {
		switch {
		case key.Matches(msg, k.Relocate):
			d.busy = true
			return relocateCmd(d.st.Ctx, d.host, d.moved.match.Project.ID, d.moved.path)
		case key.Matches(msg, k.AddNew):
			d.moved = nil
			return d.add(true, true)
		case key.Matches(msg, k.Cancel):
			d.moved = nil
			d.focus(0)
		}
		return nil
	}
	if d.busy && !key.Matches(msg, k.Cancel) {
		// The answer to ctrl+s is on its way; a "y" typed ahead must not
		// land in the path, nor answer a question not yet shown.
		return nil
	}
	switch {
	case key.Matches(msg, k.Cancel):
		return d.st.Close(d)
	case key.Matches(msg, k.Submit):
		return d.submit()
	case d.field == 0 && key.Matches(msg, k.Complete):
		return d.path.Complete()
	case key.Matches(msg, k.Next):
		if d.field == 2 && key.Matches(msg, k.Finish) {
			return d.submit()
		}
		d.focus(min(d.field+1, 2))
		return nil
	case key.Matches(msg, k.Prev):
		d.focus(max(d.field-1, 0))
		return nil
	}
	switch d.field {
	case 0:
		d.errText = ""
		return d.path.Update(msg)
	case 1:
		var cmd tea.Cmd
		d.name, cmd = d.name.Update(msg)
		return cmd
	default:
		switch {
		case key.Matches(msg, k.Toggle):
			d.trust = !d.trust
		case key.Matches(msg, k.TrustOn):
			d.trust = true
		case key.Matches(msg, k.TrustOff):
			d.trust = false
		}
	}
	return nil
}

func (d *addDialog) focus(f int) {
	d.field = f
	d.path.Input.Blur()
	d.name.Blur()
	switch f {
	case 0:
		d.path.Input.Focus()
	case 1:
		d.name.Focus()
	}
}

func (d *addDialog) submit() tea.Cmd {
	if strings.TrimSpace(d.path.Input.Value()) == "" {
		d.errText = "Type the folder's path first."
		d.focus(0)
		return nil
	}
	return d.add(false, false)
}

// add registers the folder off the UI goroutine. Unless the user already
// confirmed it (broadOK), a folder that is too broad (/, the home folder,
// one holding pi's or pi-tui's own files) is not added but asked about;
// unless asNew, neither is a folder that looks like a missing project.
func (d *addDialog) add(broadOK, asNew bool) tea.Cmd {
	d.busy = true
	h, reg, pl, name, trust, ctx := d.host, d.host.Projects, d.host.Places, d.name.Value(), d.trust, d.st.Ctx
	path := paths.ExpandHome(d.path.Input.Value(), pl.Home)
	if p := d.folderOf; p != nil {
		return func() tea.Msg {
			f, err := reg.AddFolder(ctx, p.ID, path, name, trust, registry.FolderOptions{Places: &pl, AllowBroad: broadOK})
			var be *registry.BroadRootError
			if errors.As(err, &be) {
				return broadMsg{sentence: be.Error() + "."}
			}
			return addedMsg{id: p.ID, name: p.Name, folder: f.Name, err: err}
		}
	}
	return func() tea.Msg {
		if !broadOK {
			var be *registry.BroadRootError
			if err := reg.CheckBroad(ctx, path, pl); errors.As(err, &be) {
				return broadMsg{sentence: be.Error() + "."}
			} else if err != nil {
				return addedMsg{err: err}
			}
		}
		if !asNew {
			if m, ok, err := reg.MatchMissing(ctx, path); err != nil {
				return addedMsg{err: err}
			} else if ok {
				return movedMsg{match: m, path: path}
			}
		}
		p, created, err := h.AddProject(ctx, path, name, trust)
		if err != nil {
			return addedMsg{err: err}
		}
		same, _ := reg.SameName(ctx, p.ID, p.Name)
		return addedMsg{id: p.ID, name: p.Name, created: created, others: len(same)}
	}
}

func (d *addDialog) View(width, height int) string {
	st := d.st
	w := min(max(width-4, 30), 72)
	if d.moved != nil {
		p, k := d.moved.match.Project, d.keys
		sentence := fmt.Sprintf("This looks like %s, whose folder %s is missing (%s).",
			p.Name, paths.Tilde(p.Root, d.host.Places.Home), d.moved.match.Reason)
		lines := []string{st.DialogHead.Render("Add a project"), "",
			dialog.Paragraph(st, common.VisibleLine(sentence), w-4), "",
			st.Warn.Render(fmt.Sprintf("Relocate it here (%s) / add as a new project (%s)", k.Relocate.Help().Key, k.AddNew.Help().Key)),
			st.Dim.Render("Relocating moves its sessions, memory, trust, group and pin here."),
		}
		if d.busy {
			lines = append(lines, st.Dim.Render("relocating…"))
		}
		lines = append(lines, "", st.Dim.Render(k.Relocate.Help().Key+" "+k.Relocate.Help().Desc+" · "+k.AddNew.Help().Key+" "+k.AddNew.Help().Desc+" · esc back"))
		return st.Dialog.Width(w).Render(lipgloss.JoinVertical(lipgloss.Left, lines...))
	}
	if d.broad != "" {
		return st.Dialog.Width(w).Render(lipgloss.JoinVertical(lipgloss.Left,
			st.DialogHead.Render(d.title()), "",
			dialog.Paragraph(st, d.broad, w-4), "",
			st.Warn.Render("Add it anyway?"), "",
			st.Dim.Render(d.keys.Confirm.Help().Key+" "+d.keys.Confirm.Help().Desc+" · "+d.keys.Back.Help().Key+" "+d.keys.Back.Help().Desc)))
	}
	d.path.Input.Width, d.name.Width = w-12, w-12
	label := func(i int, s string) string {
		if d.field == i {
			return st.Key.Render("› " + s)
		}
		return "  " + s
	}
	check := "[ ] no"
	if d.trust {
		check = "[x] yes"
	}
	lines := []string{
		st.DialogHead.Render(d.title()), "",
		label(0, "Folder ") + d.path.Input.View(),
	}
	lines = append(lines, d.path.Lines(st, 9)...)
	trustHint, note := "space/y/n; nested AGENTS.md files load only in trusted projects", "Memory can be added later from the project's menu (m)."
	if d.folderOf != nil {
		trustHint = "space/y/n; the folder's AGENTS.md files reach the agent only when it is trusted"
		note = "The primary root " + paths.Tilde(d.folderOf.Root, d.host.Places.Home) + " stays first: sessions run there, memory lives there. The folder's files complete as @NAME:path."
	}
	lines = append(lines,
		label(1, "Name   ")+d.name.View(),
		label(2, "Trust  ")+check,
		// The hint lines up under the answer, not back at the border.
		st.Dim.Render(dialog.Wrap("         "+trustHint, w-4)),
		"",
		st.Dim.Render(dialog.Wrap(common.VisibleLine(note), w-4)),
	)
	if d.errText != "" {
		lines = append(lines, st.Error.Render(d.errText))
	}
	if d.busy {
		lines = append(lines, st.Dim.Render("adding…"))
	}
	lines = append(lines, "", st.Dim.Render(common.Hints(d.keys.Complete, d.keys.Next, d.keys.Submit, d.keys.Cancel)))
	return st.Dialog.Width(w).Render(lipgloss.JoinVertical(lipgloss.Left, lines...))
}

func (d *addDialog) Title() string { return d.title() }
func (d *addDialog) Help() [][]key.Binding {
	k := d.keys
	if d.moved != nil {
		return [][]key.Binding{{k.Relocate, k.AddNew, k.Cancel}}
	}
	if d.broad != "" {
		return [][]key.Binding{{k.Confirm, k.Back}}
	}
	return [][]key.Binding{{k.Complete, k.Next, k.Prev, k.Toggle, k.Submit, k.Cancel}}
}

// CapturesText is true while the folder or the name is typed.
func (d *addDialog) CapturesText() bool { return d.broad == "" && d.moved == nil && d.field < 2 }
