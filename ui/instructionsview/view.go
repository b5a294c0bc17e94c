// Package instructionsview shows which instruction files apply in a
// project: the root chain a runtime starts with (sources, bytes, cuts,
// skipped candidates and warnings) and, for a path typed in, that path's
// chain. Resolution runs as a command with a context.
package instructionsview

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/internal/safetext"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/pathfield"
)

// resolveTimeout bounds one resolution, as the runtime's preflight is.
const resolveTimeout = 2 * time.Second

// ModelInUse is what the page asks of the runtimes
// (core/runtimes.Manager): the model a prompt naming none runs, as they
// resolve it. It is defined here, where it is asked
// (docs/adr/0090-interfaces-where-consumed.md).
type ModelInUse interface {
	Model(ctx context.Context, spec string) (runtimes.ModelChoice, error)
}

// Page shows a project's instruction chains.
type Page struct {
	common.PageLayer
	host  *host.Host
	inUse ModelInUse // nil: a host without runtimes, which runs no prompt
	st    *common.UI
	p     registry.Project

	// path is the path field; tab completes in it, inside the project.
	path     pathfield.Field
	pathNote string // why a completion found nothing, under the field
	inputOn  bool
	chain    *instructions.Chain
	model    instructions.Model // the model a prompt runs (promptModel)
	byPi     bool               // the pi engine picks the model itself
	modelErr string
	err      string
	showText bool
	// untrustedTarget is the path asked for in an untrusted project, which
	// gets the root chain.
	untrustedTarget string
	// folder is the folder other than the primary root that holds the path
	// asked for (NAME:path, ADR 0085): its own chain is shown, or, when it
	// is untrusted, the global files alone. nil: the primary root.
	folder *registry.Folder
	asked  string // the path as typed, for the folder's note
	vp     viewport.Model
	busy   bool
	keys   keys

	width, height int
}

type keys struct {
	Path, Text, Close, Scroll key.Binding
	// Complete completes the path field's last name (in the field).
	Complete key.Binding
	// In the path field (Path's partners): enter shows the typed path's
	// chain, esc leaves the field; every other key is typed.
	Resolve, Cancel key.Binding
}

// New returns the page for p; inUse says which model a prompt runs.
func New(h *host.Host, inUse ModelInUse, st *common.UI, p registry.Project) *Page {
	home := ""
	if h != nil {
		home = h.Places.Home
	}
	// Completion starts at the project root and stays inside it, as the
	// chain does: a path outside gets only the root chain.
	f := pathfield.New(pathfield.Options{Home: home, Root: p.Root, Files: true})
	f.Input.Prompt = "path: "
	f.Input.Placeholder = "a path in the project, e.g. packages/api/main.go, or NAME:path in another folder · tab completes"
	f.Input.Blur()
	return &Page{host: h, inUse: inUse, st: st, p: p, path: f, keys: keys{
		Path:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "chain for a path")),
		Text:   key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "show the text the agent gets")),
		Close:  key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "back/close")),
		Scroll: key.NewBinding(key.WithKeys("up", "down", "pgup", "pgdown"), key.WithHelp("↑/↓", "scroll")),

		Resolve:  key.NewBinding(key.WithKeys("enter")),
		Cancel:   key.NewBinding(key.WithKeys("esc")),
		Complete: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete the path")),
	}}
}

type resolvedMsg struct {
	page     *Page
	chain    *instructions.Chain
	model    instructions.Model
	byPi     bool
	modelErr error
	err      error
	// target is the path asked for ("" for the root chain); folder and
	// untrusted say how it was resolved (the page's fields of those names).
	target    string
	folder    *registry.Folder
	untrusted bool
}

// Init resolves the root chain.
func (pg *Page) Init() tea.Cmd { return pg.resolve("") }

// resolve resolves target's chain off the UI goroutine: finding the
// folder that holds it reads the file system (links are followed).
func (pg *Page) resolve(target string) tea.Cmd {
	pg.busy = true
	h, inUse, p, life := pg.host, pg.inUse, pg.p, pg.st.Ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(life, resolveTimeout)
		defer cancel()
		m, byPi, merr := promptModel(ctx, h, inUse)
		msg := resolvedMsg{page: pg, model: m, byPi: byPi, modelErr: merr, target: target}
		msg.chain, msg.folder, msg.untrusted, msg.err = chainFor(ctx, h.Resolver(m), p, target)
		return msg
	}
}

// chainFor is target's chain in project p as a runtime gets it: the
// root chain for "" and, in an untrusted project, for any path of the
// primary root (untrusted is then set); in another folder of p, that
// folder's own chain, or only the global files while the folder is
// untrusted (its own trust, ADR 0085).
func chainFor(ctx context.Context, r *instructions.Resolver, p registry.Project, target string) (c *instructions.Chain, folder *registry.Folder, untrusted bool, err error) {
	if target == "" {
		c, err = r.ResolveRoot(ctx, p.Root)
		return c, nil, false, err
	}
	if f, t, ok := p.FolderTarget(target, p.Root); ok {
		resolve := r.ResolveInFolder
		if !f.Trusted {
			resolve = r.ResolveGlobal
		}
		c, err = resolve(ctx, instructions.Folder{Root: f.Path, Name: f.Name}, t)
		return c, &f, false, err
	}
	if !p.Trusted {
		c, err = r.ResolveRoot(ctx, p.Root)
		return c, nil, true, err
	}
	c, err = r.ResolveTarget(ctx, p.Root, target)
	return c, nil, false, err
}

// promptModel is the model a prompt naming none runs, as the runtimes
// resolve it (the one the status bar and Settings show): the provider
// files in the chain are that model's, so the page shows what a prompt
// is given. byPi says the pi engine picks the model itself; m is then
// empty, and a prompt gets no provider files either.
func promptModel(ctx context.Context, h *host.Host, inUse ModelInUse) (m instructions.Model, byPi bool, err error) {
	if inUse == nil { // a host without runtimes runs no prompt
		m, err := h.DefaultModel()
		return m, false, err
	}
	c, err := inUse.Model(ctx, "")
	if err != nil {
		return instructions.Model{}, false, err
	}
	return instructions.Model{Provider: c.Model.Provider, ID: c.Model.ID}, c.ByPi && c.Model.Provider == "", nil
}

// Update handles the page's messages.
func (pg *Page) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case resolvedMsg:
		if msg.page != pg {
			return pg, nil
		}
		pg.busy = false
		pg.model, pg.byPi = msg.model, msg.byPi
		pg.asked, pg.folder, pg.untrustedTarget = msg.target, msg.folder, ""
		if msg.untrusted {
			pg.untrustedTarget = msg.target
		}
		pg.modelErr = ""
		if msg.modelErr != nil {
			pg.modelErr = msg.modelErr.Error()
		}
		if msg.err != nil {
			pg.err = common.Visible(msg.err.Error()) // names paths typed or found
			return pg, nil
		}
		pg.err, pg.chain = "", msg.chain
		pg.vp.SetContent(pg.wrapDetails())
		pg.vp.GotoTop()
		return pg, nil
	case pathfield.Msg:
		if note, ok := pg.path.Apply(msg); ok {
			pg.pathNote = common.Visible(note)
		}
		return pg, nil
	case tea.KeyMsg:
		if pg.inputOn {
			switch {
			case key.Matches(msg, pg.keys.Cancel):
				pg.inputOn = false
				pg.path.Input.Blur()
				pg.path.Forget()
				pg.pathNote = ""
				return pg, nil
			case key.Matches(msg, pg.keys.Resolve):
				pg.inputOn = false
				pg.path.Input.Blur()
				pg.path.Forget()
				pg.pathNote = ""
				return pg, pg.resolve(paths.ExpandHome(strings.TrimSpace(pg.path.Input.Value()), pg.host.Places.Home))
			case key.Matches(msg, pg.keys.Complete):
				return pg, pg.path.Complete()
			}
			pg.pathNote = ""
			return pg, pg.path.Update(msg)
		}
		switch {
		case key.Matches(msg, pg.keys.Close):
			if pg.showText {
				pg.showText = false
				pg.vp.SetContent(pg.wrapDetails())
				return pg, nil
			}
			return pg, pg.st.Close(pg)
		case key.Matches(msg, pg.keys.Path):
			pg.inputOn = true
			return pg, pg.path.Input.Focus()
		case key.Matches(msg, pg.keys.Text):
			pg.showText = !pg.showText
			if pg.chain != nil {
				if pg.showText {
					pg.vp.SetContent(pg.wrap(safetext.Visible(pg.chain.Text)))
				} else {
					pg.vp.SetContent(pg.wrapDetails())
				}
				pg.vp.GotoTop()
			}
			return pg, nil
		}
		var cmd tea.Cmd
		pg.vp, cmd = pg.vp.Update(msg)
		return pg, cmd
	}
	return pg, nil
}

// wrap fits text to the viewport's width, so long warnings and paths
// are read whole rather than cut.
func (pg *Page) wrap(s string) string {
	if pg.vp.Width <= 0 {
		return s
	}
	return ansi.Wrap(s, pg.vp.Width, "")
}

// countedBytes says what a chain's bytes are, as `pi-tui instructions`
// says it.
const countedBytes = "a file counts the text the agent gets, without the white space around it"

// sourceState says whether a source went in whole or cut, and the file's
// size when it is not what is counted (a final newline, a cut), as
// `pi-tui instructions` does.
func sourceState(s instructions.Source) string {
	state := "whole"
	if s.Truncated {
		state = "cut"
	}
	if s.Bytes != s.ShownBytes {
		state += " (the file: " + common.Plural(s.Bytes, "byte") + ")"
	}
	return state
}

// wrapDetails is details fitted to the viewport's width at words, each
// line's continuations under its start (a warning's under its "!"), so
// a sentence is read whole.
func (pg *Page) wrapDetails() string {
	if pg.vp.Width <= 0 {
		return pg.details()
	}
	return dialog.Wrap(pg.details(), pg.vp.Width)
}

// details is the chain as a table: sources with sizes and cuts, skipped
// candidates with reasons, warnings. Labels and paths are quoted
// (safetext.Label) and control characters shown (safetext.Visible), as in
// the section the agent gets: a repository's names must not forge lines
// here or drive the terminal.
func (pg *Page) details() string {
	c, st := pg.chain, pg.st
	if c == nil {
		return ""
	}
	var b strings.Builder
	target := "the project root"
	if c.Target != c.Root {
		target = safetext.Label(displayPath(c.Target, c.Root, pg.host.Places.Home))
	}
	// A row counts what the total counts (the text the agent gets), as
	// `pi-tui instructions` does; the file's size follows when it differs.
	fmt.Fprintf(&b, "Chain for %s — %s of %s bytes used\n(%s)\n\n", target, common.Group(c.UsedBytes), common.Group(c.BudgetBytes), countedBytes)
	if len(c.Sources) == 0 {
		b.WriteString("No instruction files apply here.\n")
	}
	for i, s := range c.Sources {
		state := sourceState(s)
		if s.Truncated {
			state = st.Warn.Render(state)
		}
		kind := ""
		if s.Kind == instructions.KindProvider {
			kind = " (provider)"
		}
		fmt.Fprintf(&b, "%2d. %s%s  %s  %s\n", i+1, safetext.Label(s.Label), kind, common.Plural(s.ShownBytes, "byte"), state)
	}
	if len(c.Skipped) > 0 {
		b.WriteString("\n" + st.Section.Render("Skipped") + "\n")
		for _, s := range c.Skipped {
			fmt.Fprintf(&b, "  %s: %s\n", safetext.Label(displayPath(s.Path, c.Root, pg.host.Places.Home)), safetext.Visible(s.Reason))
		}
	}
	var warns []string
	warns = append(warns, c.Warnings...)
	const providerFiles = "provider files (CLAUDE.md, CODEX.md, GEMINI.md)"
	switch {
	case pg.modelErr != "":
		warns = append(warns, "no model can run a prompt, so "+providerFiles+" are not shown: "+common.TildeText(pg.modelErr, pg.host.Places.Home))
	case pg.byPi:
		warns = append(warns, "the pi engine picks the model itself, so a prompt gets no "+providerFiles+" and none are shown")
	}
	switch f := pg.folder; {
	case f != nil && !f.Trusted:
		warns = append(warns, "folder "+safetext.Label(f.Name)+" is untrusted: its instruction files are not delivered until it is trusted (pi-tui projects folders trust on the command line); only the global ones are shown")
	case f != nil:
		warns = append(warns, safetext.Label(pg.asked)+" is in folder "+safetext.Label(f.Name)+": this is that folder's own chain, delivered when a tool first reaches it; the primary root's stays in the system prompt")
	}
	if !pg.p.Trusted && pg.untrustedTarget != "" {
		warns = append(warns, "this project is untrusted: for "+safetext.Label(pg.untrustedTarget)+" a runtime gets only the root chain shown above, until you trust the project (t in the row menu)")
	}
	if len(warns) > 0 {
		b.WriteString("\n" + st.Section.Render("Warnings") + "\n")
		for _, w := range warns {
			text := safetext.Visible(w)
			if pg.vp.Width > 0 {
				// Wrapped under its start, past the "!".
				text = strings.ReplaceAll(dialog.Wrap(text, max(pg.vp.Width-4, 10)), "\n", "\n    ")
			}
			b.WriteString("  " + st.Warn.Render("!") + " " + text + "\n")
		}
	}
	return b.String()
}

func displayPath(p, root, home string) string {
	if rel, ok := strings.CutPrefix(p, root+"/"); ok {
		return rel
	}
	return paths.Tilde(p, home)
}

// View draws the page.
func (pg *Page) View(width, height int) string {
	if width != pg.width || height != pg.height {
		pg.width, pg.height = width, height
		pg.vp.Width = width
		pg.path.Input.Width = max(width-10, 10)
		if pg.chain != nil && !pg.showText {
			pg.vp.SetContent(pg.wrapDetails())
		}
	}
	st := pg.st
	title, tail := "Instructions · "+common.VisibleLine(pg.p.Name), ""
	if pg.model.Provider != "" {
		tail += "  model " + common.VisibleLine(pg.model.Provider+"/"+pg.model.ID)
	}
	if pg.busy {
		tail += "  resolving…"
	}
	// The folder takes what the title and the rest leave, its last
	// folders kept.
	room := max(width-ansi.StringWidth(title)-2-ansi.StringWidth(tail), 12)
	head := st.Title.Render(title) + st.Dim.Render("  "+common.ShortPath(paths.Tilde(pg.p.Root, pg.host.Places.Home), room)+tail)
	line2 := st.Dim.Render("/ chain for a path · v text the agent gets · esc close")
	if pg.inputOn || pg.path.Input.Value() != "" {
		line2 = pg.path.Input.View()
		if pg.inputOn {
			line2 = strings.Join(append([]string{line2}, pg.path.Lines(st, 6)...), "\n")
		}
		if pg.pathNote != "" {
			line2 += "\n" + st.Warn.Render(dialog.Wrap(pg.pathNote, max(width, 20)))
		}
	}
	// The chain gets what the field and its completions leave.
	pg.vp.Height = max(height-4-strings.Count(line2, "\n")-1, 3)
	body := pg.vp.View()
	if pg.err != "" {
		body = st.Error.Render(dialog.Wrap(pg.err, max(width, 20))) // a sentence: wrapped, never cut
	}
	return head + "\n" + line2 + "\n\n" + body
}

// Title names the page.
func (pg *Page) Title() string { return "Instructions · " + pg.p.Name }

// Help lists the keys.
func (pg *Page) Help() [][]key.Binding {
	k := pg.keys
	return [][]key.Binding{{k.Path, k.Complete, k.Text, k.Scroll, k.Close}}
}

// CapturesText is true while the path field is active.
func (pg *Page) CapturesText() bool { return pg.inputOn }
