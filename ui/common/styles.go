// Package common holds what every screen of the terminal UI shares: styles
// built from one program's renderer (each SSH client has its own colours),
// the global keymap, and the small messages screens send to the shell.
package common

import (
	"github.com/charmbracelet/lipgloss"
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

// NewStyles builds the styles with the renderer of one program.
func NewStyles(r *lipgloss.Renderer) *Styles {
	accent := lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#B39DFF"}
	dim := lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"}
	warn := lipgloss.AdaptiveColor{Light: "#A05A00", Dark: "#FFB454"}
	bad := lipgloss.AdaptiveColor{Light: "#B00020", Dark: "#FF6B6B"}
	good := lipgloss.AdaptiveColor{Light: "#1B7F3B", Dark: "#7BD88F"}
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
	s.Cursor = r.NewStyle().Reverse(true)
	s.Gutter = r.NewStyle().Foreground(dim)
	s.Input = r.NewStyle().Underline(true)
	return s
}
