// Package markdown renders markdown for the terminal UI with glamour, in
// the colours of one program's renderer. The glamour renderer is made
// when the first text is drawn, not when the program starts, and is kept
// for the width it was made for.
//
// Syntax highlighting (chroma) parses its lexers and styles on first use:
// pi-tui builds against a patched chroma (third_party/chroma, ADR 0018)
// so that commands which never draw markdown do not pay for it at start.
package markdown

import (
	"sync"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/ui/common"
)

// Renderer renders markdown for one program. It is safe for concurrent
// use.
type Renderer struct {
	r *lipgloss.Renderer

	mu    sync.Mutex
	width int // of tr
	tr    *glamour.TermRenderer
}

// New returns a Renderer drawing in r's colour profile and background.
func New(r *lipgloss.Renderer) *Renderer {
	return &Renderer{r: r}
}

// style is the glamour style for the renderer: glamour ignores lipgloss's
// profile, so it is chosen from it here; without colour, the plain one.
func (m *Renderer) style() ansi.StyleConfig {
	switch {
	case m.r.ColorProfile() == termenv.Ascii:
		return styles.NoTTYStyleConfig
	case !m.r.HasDarkBackground():
		return styles.LightStyleConfig
	}
	return styles.DarkStyleConfig
}

// Render renders text wrapped to width. The text comes from a model or a
// file: controls are shown, and character references that would decode
// into one (&#27;) are kept as written; the output keeps glamour's own
// styling and nothing else.
func (m *Renderer) Render(text string, width int) (string, error) {
	wrap := max(width-4, 20)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tr == nil || m.width != wrap {
		tr, err := glamour.NewTermRenderer(glamour.WithStyles(m.style()), glamour.WithWordWrap(wrap),
			glamour.WithColorProfile(m.r.ColorProfile()))
		if err != nil {
			return "", err
		}
		m.tr, m.width = tr, wrap
	}
	out, err := m.tr.Render(common.MarkdownSafe(text))
	return common.SafeANSI(out), err
}
