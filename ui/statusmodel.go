package ui

import (
	"strings"

	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/ui/common"
)

// statusModel is the status bar's model text for what a prompt naming no
// model would run (see runtimes.Manager.Model): its name and, in
// brackets, where it comes from; "no model (see Settings)" when none can
// run, Settings saying why and how to set one up.
func statusModel(c runtimes.ModelChoice, err error) (text, name string) {
	switch {
	case err != nil:
		return "no model (see Settings)", ""
	case c.ByPi && c.Model.ID == "":
		return "pi's own", ""
	}
	name = c.Model.String()
	var from []string
	if o := c.Origin(); o != "" {
		from = append(from, o)
	}
	switch {
	case c.ByPi:
		from = append(from, "run by pi") // with pi's own login
	case !c.Usable:
		from = append(from, "no key, see Settings")
	}
	text = common.VisibleLine(name)
	if len(from) > 0 {
		text += " (" + strings.Join(from, "; ") + ")"
	}
	return text, name
}
