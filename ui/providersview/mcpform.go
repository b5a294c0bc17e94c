package providersview

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/core/providers"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// mcpForm adds an MCP server with `pi mcp add`: its name, the command
// that starts it (with its arguments) or its URL, and where it goes, the
// global mcp.json or the project's .pi/mcp.json (a trusted project's
// only: pi reads no other). pi writes the file; a refusal is shown in the
// form, which keeps what was typed.
type mcpForm struct {
	common.DialogLayer
	st      *common.UI
	keys    mcpFormKeys
	pi      *providers.Pi
	project *Project
	servers []providers.MCPServer

	name, server textinput.Model
	local        bool // the project's .pi/mcp.json
	field        int  // 0 name, 1 server, 2 scope
	errText      string
	busy         bool
}

type mcpFormKeys struct {
	Next, Prev, Submit, Cancel key.Binding
	// On the scope field: space switches, g and p pick; enter adds
	// (Next's partner there).
	Toggle, Global, Project, Finish key.Binding
}

// Form fields.
const (
	fieldName = iota
	fieldServer
	fieldScope
)

func newMCPForm(st *common.UI, pi *providers.Pi, project *Project, servers []providers.MCPServer) *mcpForm {
	input := func(placeholder string, limit int) textinput.Model {
		in := textinput.New()
		st.StyleTextInput(&in)
		in.Prompt, in.Placeholder, in.CharLimit = "", placeholder, limit
		return in
	}
	f := &mcpForm{st: st, pi: pi, project: project, servers: servers,
		name:   input("letters, digits, _ and -", 64),
		server: input("npx -y @modelcontextprotocol/server-filesystem .", 1024),
		keys: mcpFormKeys{
			Next:    key.NewBinding(key.WithKeys("down", "enter", "tab"), key.WithHelp("↓/enter", "next field")),
			Prev:    key.NewBinding(key.WithKeys("up", "shift+tab"), key.WithHelp("↑", "previous field")),
			Submit:  key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "add")),
			Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
			Toggle:  key.NewBinding(key.WithKeys(" "), key.WithHelp("space/g/p", "global or the project's")),
			Global:  key.NewBinding(key.WithKeys("g")),
			Project: key.NewBinding(key.WithKeys("p")),
			Finish:  key.NewBinding(key.WithKeys("enter")),
		}}
	f.focus(fieldName)
	return f
}

// mcpAddedMsg is pi's answer to the form's `pi mcp add`.
type mcpAddedMsg struct {
	form *mcpForm
	out  string
	err  error
}

func (f *mcpForm) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case mcpAddedMsg:
		if msg.form != f {
			return f, nil
		}
		f.busy = false
		if msg.err != nil {
			f.errText = firstLine(msg.err.Error())
			return f, nil
		}
		notice := firstLine(msg.out) + " A running session picks it up on /reload."
		f.st.Close(f)
		return f, func() tea.Msg { return doneMsg{notice: notice} }
	case tea.KeyMsg:
		return f, f.key(msg)
	}
	return f, nil
}

func (f *mcpForm) key(msg tea.KeyMsg) tea.Cmd {
	k := f.keys
	if f.busy {
		// pi is writing the file; a key typed ahead must not change what
		// the answer is about. pi's answer comes within its time bound.
		return nil
	}
	switch {
	case key.Matches(msg, k.Cancel):
		return f.st.Close(f)
	case key.Matches(msg, k.Submit):
		return f.submit()
	case f.field == fieldScope && key.Matches(msg, k.Finish):
		return f.submit()
	case key.Matches(msg, k.Next):
		f.focus(min(f.field+1, fieldScope))
		return nil
	case key.Matches(msg, k.Prev):
		f.focus(max(f.field-1, fieldName))
		return nil
	}
	var cmd tea.Cmd
	switch f.field {
	case fieldName:
		f.name, cmd = f.name.Update(msg)
	case fieldServer:
		f.server, cmd = f.server.Update(msg)
	default:
		switch {
		case key.Matches(msg, k.Toggle):
			f.setLocal(!f.local)
		case key.Matches(msg, k.Global):
			f.setLocal(false)
		case key.Matches(msg, k.Project):
			f.setLocal(true)
		}
		return nil
	}
	f.errText = ""
	return cmd
}

// setLocal picks the project's file, which only a trusted project has.
func (f *mcpForm) setLocal(on bool) {
	f.errText = ""
	if on {
		if why := f.noProject(); why != "" {
			f.errText = why
			return
		}
	}
	f.local = on
}

// noProject says why the server cannot go in a project's file; "" when
// it can.
func (f *mcpForm) noProject() string {
	switch {
	case f.project == nil:
		return "no project is open here, so the server goes in the global file"
	case !f.project.Trusted:
		return fmt.Sprintf("%s is not trusted, so pi ignores its .pi/mcp.json: trust it first (t in Projects)", common.VisibleLine(f.project.Name))
	}
	return ""
}

func (f *mcpForm) focus(field int) {
	f.field = field
	f.name.Blur()
	f.server.Blur()
	switch field {
	case fieldName:
		f.name.Focus()
	case fieldServer:
		f.server.Focus()
	}
}

// submit checks what pi would refuse or silently replace, then runs
// `pi mcp add` off the UI goroutine.
func (f *mcpForm) submit() tea.Cmd {
	fail := func(field int, err error) tea.Cmd {
		f.errText = err.Error()
		f.focus(field)
		return nil
	}
	name := strings.TrimSpace(f.name.Value())
	if err := providers.CheckMCPName(name); err != nil {
		return fail(fieldName, err)
	}
	if err := f.taken(name); err != nil {
		return fail(fieldName, err)
	}
	add, err := providers.ParseMCPServer(name, f.server.Value(), f.local)
	if err != nil {
		return fail(fieldServer, err)
	}
	args, err := add.AddArgs()
	if err != nil {
		return fail(fieldServer, err)
	}
	f.busy, f.errText = true, ""
	pi, ctx := f.pi, f.st.Ctx
	return func() tea.Msg {
		out, err := pi.RunMCP(ctx, args...)
		return mcpAddedMsg{form: f, out: out, err: err}
	}
}

// taken refuses a name a server of the same file already has: pi's add
// would replace that server without a word. (A project's server of the
// name of a global one is pi's way to override it, and is allowed.)
func (f *mcpForm) taken(name string) error {
	scope := "global"
	if f.local {
		scope = "project"
	}
	for _, s := range f.servers {
		if s.Scope == scope && providers.SameMCPName(s.Name, name) {
			return fmt.Errorf("%s already has an MCP server %s: remove it first (D), or pick another name", f.file(), common.VisibleLine(s.Name))
		}
	}
	return nil
}

// file is the mcp.json the server goes in, as the form shows it.
func (f *mcpForm) file() string {
	if f.local && f.project != nil {
		return dialog.Tilde(f.project.file(), f.st.Home)
	}
	return dialog.Tilde(filepath.Join(f.pi.AgentDir, "mcp.json"), f.st.Home)
}

func (f *mcpForm) View(width, height int) string {
	st := f.st
	w := min(max(width-4, 30), 76)
	f.name.Width, f.server.Width = w-14, w-14
	label := func(i int, s string) string {
		if f.field == i {
			return st.Key.Render("› " + s)
		}
		return "  " + s
	}
	hint := func(s string) string { return st.Dim.Render(dialog.Wrap(s, w-14)) }
	indent := func(block string) string {
		return lipgloss.NewStyle().PaddingLeft(10).Render(block)
	}
	global, project := "(•) global", "( ) project"
	if f.local {
		global, project = "( ) global", "(•) project"
	}
	scopeHint := "the project's file: " + f.noProject()
	if f.noProject() == "" {
		scopeHint = f.keys.Toggle.Help().Key + "; now " + f.file()
	}
	lines := []string{
		st.DialogHead.Render("Add an MCP server"), "",
		label(fieldName, "Name    ") + f.name.View(),
		label(fieldServer, "Server  ") + f.server.View(),
		indent(hint("the command that starts it, with its arguments (quotes as in a shell; nothing is expanded), or its http(s) URL")),
		label(fieldScope, "Scope   ") + global + "  " + project,
		indent(hint(scopeHint)),
	}
	if f.errText != "" {
		lines = append(lines, "", st.Error.Render(dialog.Paragraph(st, common.VisibleLine(f.errText), w-4)))
	}
	if f.busy {
		lines = append(lines, st.Dim.Render("adding (pi mcp add)…"))
	}
	lines = append(lines, "", st.Dim.Render(common.Hints(f.keys.Next, f.keys.Submit, f.keys.Cancel)))
	return st.Dialog.Width(w).Render(lipgloss.JoinVertical(lipgloss.Left, lines...))
}

func (f *mcpForm) Title() string { return "Add an MCP server" }

func (f *mcpForm) Help() [][]key.Binding {
	k := f.keys
	return [][]key.Binding{{k.Next, k.Prev, k.Toggle, k.Submit, k.Cancel}}
}

// CapturesText is true while the name or the command is typed.
func (f *mcpForm) CapturesText() bool { return f.field != fieldScope }
