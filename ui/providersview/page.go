// Package providersview is the Providers screen: every provider pi and
// pi-tui know and how each is reached (core/providers), pi's own login
// and logout run in this terminal (tea.ExecProcess, so pi's flow owns the
// screen and the page comes back read afresh), an OpenAI-compatible
// endpoint added to models.json, and pi's MCP servers. Reading and
// writing run as commands; pi does every login.
package providersview

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/providers"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// Deps is what the page needs from the program.
type Deps struct {
	UI       *common.UI
	AgentDir string
	Env      func(string) string
	// Exec runs pi in the terminal (nil: tea.ExecProcess); over SSH the
	// server supplies one.
	Exec func(cmd *exec.Cmd, done func(error) tea.Msg) tea.Cmd
	// Locate finds pi: the Locate of the host's engine that keeps the
	// logins (core/engine); nil: there is none, and the page says so.
	Locate func(context.Context) (engine.Found, error)
	// PiEnv is pi's environment (nil: this process's).
	PiEnv []string
	// Project is the project the program is about, whose .pi/mcp.json
	// pi reads when it is trusted; nil lists the global servers alone.
	Project *Project
}

// Page is the Providers screen.
type Page struct {
	common.PageLayer
	d    Deps
	keys keys

	st      providers.State
	pi      *providers.Pi
	loaded  bool
	loads   int
	mcp     providers.MCPList
	mcpErr  string
	mcpDone bool
	// noBrowser: logins use pi's other method (a device code, a pasted
	// redirect URL); the default over SSH.
	noBrowser bool
	cursor    int
	top       int
	busy      string
	width     int
	height    int
}

type keys struct {
	Up, Down, Login, APIKey, Logout, Add, Browser, Toggle, AddMCP, RemoveMCP, Reload, Close key.Binding
	// Top, Bottom, PageUp, PageDown and Section move further than a
	// line: the MCP servers sit below every provider pi knows (dozens).
	Top, Bottom, PageUp, PageDown, Section key.Binding
}

// newKeys are the page's keys: data, shown by Help.
func newKeys() keys {
	return keys{
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Login:   key.NewBinding(key.WithKeys("enter", "l"), key.WithHelp("enter", "log in (pi's login, here) · an MCP server: sign in")),
		APIKey:  key.NewBinding(key.WithKeys("K"), key.WithHelp("K", "store an API key with pi (not echoed)")),
		Logout:  key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "log out")),
		Add:     key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "add an OpenAI-compatible endpoint")),
		Browser: key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "browser or device code")),
		Toggle:  key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "turn the MCP server on or off")),
		Reload:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "read again")),
		Close:   key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),

		AddMCP: key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "add an MCP server (a command or a URL, global or the project's)")),
		// D as removing a project or deleting a session: it asks first.
		RemoveMCP: key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "remove the MCP server (asks first)")),

		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first row")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last row")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "a page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "a page down")),
		Section:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "jump between providers and MCP servers")),
	}
}

// New returns the page.
func New(d Deps) *Page {
	if d.Env == nil {
		d.Env = func(string) string { return "" }
	}
	return &Page{d: d, keys: newKeys(), noBrowser: providers.NoBrowserByDefault(d.Env)}
}

type stateMsg struct {
	n  int
	st providers.State
	pi *providers.Pi
}

type mcpMsg struct {
	n   int
	l   providers.MCPList
	err error
}

type doneMsg struct {
	notice string
	err    error
}

// Init reads the providers and then pi's MCP servers.
func (p *Page) Init() tea.Cmd { return p.load() }

func (p *Page) load() tea.Cmd {
	p.loads++
	p.busy = "reading the providers (asking pi)…"
	n, d, ctx := p.loads, p.d, p.d.UI.Ctx
	return func() tea.Msg {
		pi, problem := providers.FindPi(ctx, d.Locate, d.AgentDir)
		if pi != nil {
			pi.Env = d.PiEnv
		}
		st := providers.Read(ctx, providers.Options{AgentDir: d.AgentDir, Getenv: d.Env, Pi: pi, PiProblem: problem})
		return stateMsg{n: n, st: st, pi: pi}
	}
}

func (p *Page) loadMCP(n int) tea.Cmd {
	pi, ctx := p.mcpPi(), p.d.UI.Ctx
	return func() tea.Msg {
		l, err := pi.ListMCP(ctx)
		return mcpMsg{n: n, l: l, err: err}
	}
}

// row is one line the cursor rests on: a provider or an MCP server.
type row struct {
	provider *providers.Provider
	server   *providers.MCPServer
}

func (p *Page) rows() []row {
	var out []row
	for i := range p.st.Providers {
		out = append(out, row{provider: &p.st.Providers[i]})
	}
	for i := range p.mcp.Servers {
		out = append(out, row{server: &p.mcp.Servers[i]})
	}
	return out
}

// page is how far pgup and pgdn move: the rows the screen shows, less
// the heading's lines (at least one).
func (p *Page) page() int {
	return max(p.height-8, 1)
}

// otherSection is the row tab moves to: the first MCP server from a
// provider, the first provider from a server; the cursor stays where it
// is when there is no other section.
func (p *Page) otherSection() int {
	n := len(p.st.Providers)
	if p.cursor < n && len(p.mcp.Servers) > 0 {
		return n
	}
	if p.cursor >= n && n > 0 {
		return 0
	}
	return p.cursor
}

func (p *Page) selected() (row, bool) {
	rs := p.rows()
	if p.cursor < 0 || p.cursor >= len(rs) {
		return row{}, false
	}
	return rs[p.cursor], true
}

func (p *Page) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case stateMsg:
		if msg.n != p.loads {
			return p, nil
		}
		p.st, p.pi, p.loaded, p.busy = msg.st, msg.pi, true, ""
		if p.pi != nil {
			p.busy = "asking pi for its MCP servers…"
			return p, p.loadMCP(msg.n)
		}
		return p, nil
	case mcpMsg:
		if msg.n != p.loads {
			return p, nil
		}
		p.busy, p.mcpDone = "", true
		p.mcp, p.mcpErr = msg.l, ""
		if msg.err != nil {
			p.mcpErr = msg.err.Error()
		}
		return p, nil
	case doneMsg:
		if msg.err != nil {
			return p, tea.Batch(common.Failure(msg.err), p.load())
		}
		return p, tea.Batch(common.Notice("%s", msg.notice), p.load())
	case tea.KeyMsg:
		return p, p.key(msg)
	}
	return p, nil
}

func (p *Page) key(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	switch {
	case key.Matches(msg, k.Close):
		return p.d.UI.Close(p)
	case key.Matches(msg, k.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(msg, k.Down):
		p.cursor = min(p.cursor+1, max(len(p.rows())-1, 0))
	case key.Matches(msg, k.Top):
		p.cursor = 0
	case key.Matches(msg, k.Bottom):
		p.cursor = max(len(p.rows())-1, 0)
	case key.Matches(msg, k.PageUp):
		p.cursor = max(p.cursor-p.page(), 0)
	case key.Matches(msg, k.PageDown):
		p.cursor = min(p.cursor+p.page(), max(len(p.rows())-1, 0))
	case key.Matches(msg, k.Section):
		p.cursor = p.otherSection()
	case key.Matches(msg, k.Reload):
		return p.load()
	case key.Matches(msg, k.Browser):
		p.noBrowser = !p.noBrowser
	case key.Matches(msg, k.Add):
		return p.addEndpoint()
	case key.Matches(msg, k.AddMCP):
		return p.addMCP()
	case key.Matches(msg, k.RemoveMCP):
		return p.removeMCP()
	case key.Matches(msg, k.Login), key.Matches(msg, k.APIKey):
		r, ok := p.selected()
		switch {
		case !ok:
		case r.server != nil && key.Matches(msg, k.Login):
			return p.runPiIn(p.mcpPi(), "signed in to MCP server "+r.server.Name, p.mcpArgs("login", *r.server)...)
		case r.provider != nil:
			return p.login(*r.provider, key.Matches(msg, k.APIKey))
		}
	case key.Matches(msg, k.Logout):
		r, ok := p.selected()
		switch {
		case !ok:
		case r.server != nil:
			return p.runPiIn(p.mcpPi(), "signed out of MCP server "+r.server.Name, p.mcpArgs("logout", *r.server)...)
		case r.provider != nil:
			return p.runPi("logged out of "+r.provider.Name, providers.LogoutArgs(r.provider.Name)...)
		}
	case key.Matches(msg, k.Toggle):
		if r, ok := p.selected(); ok && r.server != nil {
			s := *r.server
			return func() tea.Msg {
				err := providers.SetMCPEnabled(s.Source, s.Name, !s.Enabled, false)
				state := "on"
				if s.Enabled {
					state = "off"
				}
				return doneMsg{notice: fmt.Sprintf("MCP server %s turned %s (in %s); sessions pick it up on /reload", common.VisibleLine(s.Name), state, common.VisibleLine(s.Source)), err: err}
			}
		}
	}
	return nil
}

// mcpArgs are pi's arguments for sub on server s (its project's file
// when it is a project server).
func (p *Page) mcpArgs(sub string, s providers.MCPServer) []string {
	args := []string{"mcp", sub, s.Name}
	if s.Scope == "project" {
		args = append(args, "--local")
	}
	return args
}

// login runs pi's login for pr in this terminal; a provider a pi
// extension registers is logged in to inside pi, said first.
func (p *Page) login(pr providers.Provider, apiKey bool) tea.Cmd {
	if p.pi == nil {
		return common.Failure(fmt.Errorf("logging in needs pi: %s", p.st.PiProblem))
	}
	plan, err := providers.PlanLogin(p.st, pr.Name, apiKey, p.noBrowser, false)
	if err != nil {
		return common.Failure(err)
	}
	done := "logged in to " + pr.Name
	if !plan.InPi {
		return p.runPi(done, plan.Args...)
	}
	return p.d.UI.Push(dialog.NewConfirm(p.d.UI, "Log in inside pi", plan.Note+".", func() tea.Cmd {
		return p.runPi(done, plan.Args...)
	}))
}

// runPi runs pi with args in this terminal; the page reads everything
// again when pi ends.
func (p *Page) runPi(done string, args ...string) tea.Cmd {
	return p.runPiIn(p.pi, done, args...)
}

// runPiIn is runPi with pi as given (mcpPi: in the project's folder).
func (p *Page) runPiIn(pi *providers.Pi, done string, args ...string) tea.Cmd {
	if pi == nil {
		return common.Failure(fmt.Errorf("this needs pi: %s", p.st.PiProblem))
	}
	cmd := pi.Command(context.Background(), args...)
	after := func(err error) tea.Msg {
		if err != nil {
			return doneMsg{err: fmt.Errorf("pi %s: %v", strings.Join(args[:min(2, len(args))], " "), err)}
		}
		return doneMsg{notice: done}
	}
	if p.d.Exec != nil {
		return p.d.Exec(cmd, after)
	}
	return tea.ExecProcess(cmd, after)
}

// addEndpoint asks for the name, the base URL and the key's variable,
// asks the endpoint for its models, and adds it after a confirmation
// that shows what it lists.
func (p *Page) addEndpoint() tea.Cmd {
	ui := p.d.UI
	return ui.Push(dialog.NewPrompt(ui, "Add an endpoint: name", "the provider's name in models.json, e.g. lab", "", func(v string) string {
		if err := providers.CheckName(strings.TrimSpace(v)); err != nil {
			return err.Error()
		}
		if _, ok := p.st.Find(strings.TrimSpace(v)); ok {
			return "a provider of that name exists"
		}
		return ""
	}, func(name string) tea.Cmd {
		name = strings.TrimSpace(name)
		return ui.Push(dialog.NewPrompt(ui, "Add "+name+": base URL", "an OpenAI-compatible server, e.g. http://localhost:11434", "", nil, func(base string) tea.Cmd {
			return ui.Push(dialog.NewPrompt(ui, "Add "+name+": key", "the variable holding its key, or empty to store one with pi after", "", func(v string) string {
				if v = strings.TrimSpace(v); v != "" && p.d.Env(v) == "" {
					return v + " is not set"
				}
				return ""
			}, func(keyEnv string) tea.Cmd {
				return p.probe(name, strings.TrimSpace(base), strings.TrimSpace(keyEnv))
			}))
		}))
	}))
}

type probedMsg struct {
	name, keyEnv string
	probe        providers.Probe
	models       []string
}

func (p *Page) probe(name, base, keyEnv string) tea.Cmd {
	ctx, key := p.d.UI.Ctx, p.d.Env(keyEnv)
	p.busy = "asking " + base + " for its models…"
	return func() tea.Msg {
		pr, err := providers.ProbeEndpoint(ctx, &http.Client{Timeout: providers.ProbeTimeout}, base, key)
		if err != nil {
			return doneMsg{err: err}
		}
		models, err := pr.Select(nil)
		if err != nil {
			return doneMsg{err: err}
		}
		return common.PushMsg{Layer: p.confirmAdd(probedMsg{name: name, keyEnv: keyEnv, probe: pr, models: models})}
	}
}

func (p *Page) confirmAdd(m probedMsg) common.Layer {
	shown := m.models
	more := ""
	if len(shown) > 8 {
		shown, more = shown[:8], fmt.Sprintf(" … and %d more", len(m.models)-8)
	}
	body := fmt.Sprintf("%s lists %s: %s%s. Add %s to models.json? Nothing else in the file changes.",
		m.probe.Asked, common.Plural(len(m.models), "model"), strings.Join(shown, ", "), more, m.name)
	agentDir := p.d.AgentDir
	return dialog.NewConfirm(p.d.UI, "Add "+m.name, common.Visible(body), func() tea.Cmd {
		return func() tea.Msg {
			path, err := providers.AddEndpoint(agentDir, providers.Endpoint{Name: m.name, BaseURL: m.probe.BaseURL, KeyEnv: m.keyEnv, Models: m.models})
			notice := fmt.Sprintf("added %s to %s", m.name, path)
			if m.keyEnv == "" {
				notice += "; pi uses it once it has a key: K stores one"
			}
			return doneMsg{notice: notice, err: err}
		}
	})
}

func (p *Page) Title() string { return "Providers" }

func (p *Page) Help() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{{k.Login, k.APIKey, k.Logout, k.Add, k.Toggle, k.AddMCP, k.RemoveMCP, k.Browser, k.Reload, k.Up, k.Down, k.Section, k.Top, k.Bottom, k.PageUp, k.PageDown, k.Close}}
}

// View draws the header (pi, the login method), the providers and the
// MCP servers, scrolled to keep the cursor in view.
func (p *Page) View(width, height int) string {
	p.width, p.height = width, height
	st := p.d.UI
	var head []string
	switch {
	case !p.loaded:
		head = append(head, st.Dim.Render(p.busy))
	case p.pi == nil:
		head = append(head, st.Warn.Render(fit("pi is not usable, so there is no login here: "+p.st.PiProblem, width)))
	default:
		method := "logins open a browser"
		if p.noBrowser {
			method = "logins use a device code or a pasted redirect URL (no browser)"
		}
		head = append(head, st.Dim.Render(fit(method+" · b switches", width)))
		if p.st.PiProblem != "" {
			// pi was found but did not answer: its providers are missing.
			head = append(head, st.Warn.Render(fit("pi's own view is missing: "+common.VisibleLine(p.st.PiProblem), width)))
		}
	}
	if p.loaded && p.busy != "" {
		head = append(head, st.Dim.Render(fit(p.busy, width)))
	}
	var lines []string
	cursorLine := 0
	now := st.Now()
	if len(p.st.Providers) > 0 {
		lines = append(lines, st.Section.Render("Providers"))
	}
	for i, pr := range p.st.Providers {
		if i == p.cursor {
			cursorLine = len(lines)
		}
		lines = append(lines, p.providerLine(pr, i == p.cursor, now, width))
	}
	if p.loaded && p.pi != nil {
		lines = append(lines, wrapped(st.Dim.Render, extensionNote, width)...)
		var at int
		if lines, at = p.mcpLines(lines, len(p.st.Providers), width); at >= 0 {
			cursorLine = at
		}
	}
	room := max(height-len(head), 1)
	if cursorLine < p.top {
		p.top = cursorLine
	}
	if cursorLine >= p.top+room {
		p.top = cursorLine - room + 1
	}
	p.top = min(p.top, max(len(lines)-room, 0))
	end := min(p.top+room, len(lines))
	return strings.Join(append(head, lines[p.top:end]...), "\n")
}

func (p *Page) providerLine(pr providers.Provider, sel bool, now time.Time, width int) string {
	st := p.d.UI
	mark, state, style := "  ", "not ready · "+pr.Need, st.Dim
	if pr.Ready {
		state, style = pr.Describe(now), st.Normal
		if pr.Expired {
			style = st.Warn
		}
	}
	if sel {
		mark, style = "› ", st.Selected
	}
	text := fmt.Sprintf("%s%-18s %s · %s · engines: %s", mark, common.VisibleLine(pr.Name), common.VisibleLine(state),
		common.Plural(len(pr.Models), "model"), pr.Engines())
	if pr.Ready && pr.EngineNote != "" && !pr.BuiltinEngine {
		text += " (" + common.VisibleLine(pr.EngineNote) + ")"
	}
	return style.Render(fit(text, width))
}

func (p *Page) serverLine(s providers.MCPServer, sel bool, width int) string {
	st := p.d.UI
	state := s.State
	if !s.Enabled {
		state = "off"
	}
	mark, style := "  ", st.Normal
	if sel {
		mark, style = "› ", st.Selected
	}
	text := fmt.Sprintf("%s%-18s %s · %s · %s · %s", mark, common.VisibleLine(s.Name), common.VisibleLine(state), s.Scope,
		common.Plural(len(s.Tools), "tool"), common.VisibleLine(s.Transport))
	if s.Error != "" {
		text += " · " + common.VisibleLine(s.Error)
	}
	return style.Render(fit(text, width))
}

// fit cuts a line to width cells with an ellipsis.
func fit(s string, width int) string { return ansi.Truncate(s, max(width, 1), "…") }
