package settings

import (
	"strings"

	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/ui/common"
)

// modelText is the Default model row: the model a prompt that names none
// runs and why that one, as the runtimes resolve it (so the row, the
// status bar and the prompt agree), or why none can run and how to set
// one up.
func (m *Model) modelText() string {
	s, home := m.state, m.host.Places.Home
	if s.inUseErr != nil {
		return common.VisibleLine(tildeText(s.inUseErr.Error(), home))
	}
	c := s.inUse
	if c.ByPi && c.Model.ID == "" {
		return "pi's own — pi-tui can use no model itself, so the pi engine picks one with pi's own logins; enter chooses a default"
	}
	var why []string
	switch c.Source {
	case provider.SourceDefault:
		why = append(why, "defaultProvider/defaultModel in "+pisettings.FileName)
	case provider.SourceDefaultProvider:
		why = append(why, "the first model of defaultProvider in "+pisettings.FileName)
	case provider.SourceFirstUsable:
		first := pisettings.FileName + " names no default, so prompts use the first model that has a key"
		if w := firstWhy(c.Description); w != "" {
			first += " (" + w + ")"
		}
		why = append(why, first, "enter chooses a default")
	}
	switch {
	case c.ByPi:
		why = append(why, "pi-tui cannot use it itself, so the pi engine runs it with pi's own logins")
	case !c.Usable:
		why = append(why, "it has no key: "+common.VisibleLine(tildeText(c.Hint, home)))
	}
	name := common.VisibleLine(c.Model.String())
	if len(why) == 0 {
		return name
	}
	return name + " — " + strings.Join(why, "; ")
}

// firstWhy says why the first model with a key is the one it is.
func firstWhy(d provider.Description) string {
	switch {
	case d.Custom:
		return "the first in " + pisettings.ModelsFile
	case d.KeyFrom == pisettings.AuthFile:
		return pisettings.AuthFile + " has a key for " + common.VisibleLine(d.Model.Provider)
	case d.KeyFrom == pisettings.ModelsFile:
		return pisettings.ModelsFile + " gives " + common.VisibleLine(d.Model.Provider) + " a key"
	case d.KeyFrom != "":
		return common.VisibleLine(d.KeyFrom) + " is set in the environment"
	}
	return ""
}
