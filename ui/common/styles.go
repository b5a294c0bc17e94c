// Package common holds what every screen of the terminal UI shares: styles
// built from one program's renderer (each SSH client has its own colours),
// the global keymap, and the small messages screens send to the shell.
package common

import (
	"io"
	"strconv"

	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Styles are the UI's styles for one program. Emphasis never relies on
// colour alone (bold, reverse and markers carry it), so a terminal without
// colour, or NO_COLOR, stays readable.
type Styles struct {
	R *lipgloss.Renderer

	App        lipgloss.Style
	Title      lipgloss.Style
	TabActive  lipgloss.Style
	TabIdle    lipgloss.Style
	StatusBar  lipgloss.Style
	StatusKey  lipgloss.Style
	Section    lipgloss.Style
	Selected   lipgloss.Style
	Normal     lipgloss.Style
	Dim        lipgloss.Style
	Warn       lipgloss.Style
	Error      lipgloss.Style
	OK         lipgloss.Style
	Dialog     lipgloss.Style
	DialogHead lipgloss.Style
	Key        lipgloss.Style
	Cursor     lipgloss.Style
	Gutter     lipgloss.Style
	Input      lipgloss.Style
}

// resolved turns an adaptive hex colour into the colour the renderer's
// terminal shows, once: lipgloss would otherwise match the hex against the
// 256-colour palette on every render, which twenty SSH clients drawing at
// once feel.
func resolved(r *lipgloss.Renderer, c lipgloss.AdaptiveColor) lipgloss.TerminalColor {
	hex := c.Light
	if r.HasDarkBackground() {
		hex = c.Dark
	}
	switch v := r.ColorProfile().Color(hex).(type) {
	case termenv.ANSI256Color:
		return lipgloss.Color(strconv.Itoa(int(v)))
	case termenv.ANSIColor:
		return lipgloss.Color(strconv.Itoa(int(v)))
	case termenv.RGBColor:
		return lipgloss.Color(string(v))
	}
	return lipgloss.NoColor{}
}

// NewStyles builds the styles with the renderer of one program.
func NewStyles(r *lipgloss.Renderer) *Styles {
	accent := resolved(r, lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#B39DFF"})
	dim := resolved(r, lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"})
	warn := resolved(r, lipgloss.AdaptiveColor{Light: "#A05A00", Dark: "#FFB454"})
	bad := resolved(r, lipgloss.AdaptiveColor{Light: "#B00020", Dark: "#FF6B6B"})
	good := resolved(r, lipgloss.AdaptiveColor{Light: "#1B7F3B", Dark: "#7BD88F"})
	s := &Styles{R: r}
	s.App = r.NewStyle()
	s.Title = r.NewStyle().Bold(true).Foreground(accent)
	s.TabActive = r.NewStyle().Bold(true).Underline(true).Foreground(accent).Padding(0, 1)
	s.TabIdle = r.NewStyle().Foreground(dim).Padding(0, 1)
	s.StatusBar = r.NewStyle().Reverse(true)
	s.StatusKey = r.NewStyle().Reverse(true).Bold(true)
	s.Section = r.NewStyle().Bold(true).Foreground(accent)
	s.Selected = r.NewStyle().Reverse(true).Bold(true)
	s.Normal = r.NewStyle()
	s.Dim = r.NewStyle().Foreground(dim)
	s.Warn = r.NewStyle().Bold(true).Foreground(warn)
	s.Error = r.NewStyle().Bold(true).Foreground(bad)
	s.OK = r.NewStyle().Foreground(good)
	s.Dialog = r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(accent).Padding(0, 1)
	s.DialogHead = r.NewStyle().Bold(true)
	s.Key = r.NewStyle().Bold(true).Foreground(accent)
	s.Cursor = attributes(r).NewStyle().Reverse(true)
	s.Gutter = r.NewStyle().Foreground(dim)
	s.Input = r.NewStyle().Underline(true)
	return s
}

// attributes returns a renderer for styles that must show even without
// colour: a text field's cursor. Under NO_COLOR (and on a dumb terminal)
// a program's profile is Ascii, and lipgloss then drops every attribute,
// reverse video included, so no text field would show where typing goes.
// NO_COLOR forbids colour, not attributes, and the program draws with
// escape sequences anyway: these styles render with the ANSI profile,
// which keeps reverse video. They must set no colour.
func attributes(r *lipgloss.Renderer) *lipgloss.Renderer {
	if r.ColorProfile() != termenv.Ascii {
		return r
	}
	a := lipgloss.NewRenderer(io.Discard)
	a.SetColorProfile(termenv.ANSI)
	a.SetHasDarkBackground(true) // never asked: these styles have no colour
	return a
}

// StyleTextInput gives a bubbles text field the program's cursor, which
// shows without colour too (see attributes).
func (s *Styles) StyleTextInput(ti *textinput.Model) {
	ti.Cursor.Style = s.Cursor
}
