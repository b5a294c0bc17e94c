package ui

import (
	"math"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/ui/common"
)

// statusModel is the status bar's model text for what a prompt naming no
// model would run (see runtimes.Manager.Model): its name and, in
// brackets, where it comes from; "no model (see Settings)" when none can
// run, Settings saying why and how to set one up. short is the text
// without where the model comes from, for a bar too narrow for it; a
// model without a key still says so.
func statusModel(c runtimes.ModelChoice, err error) (text, short, name string) {
	switch {
	case err != nil:
		return "no model (see Settings)", "no model (see Settings)", ""
	case c.ByPi && c.Model.ID == "":
		return "pi's own", "pi's own", ""
	}
	name = c.Model.String()
	var from []string
	if o := c.Origin(); o != "" {
		from = append(from, o)
	}
	text = common.VisibleLine(name)
	short = text
	switch {
	case c.ByPi:
		from = append(from, "run by pi") // with pi's own login
	case !c.Usable:
		from = append(from, "no key, see Settings")
		short += " (no key)"
	}
	if len(from) > 0 {
		text += " (" + strings.Join(from, "; ") + ")"
	}
	return text, short, name
}

// keep is the rank of a status bar part that is never left out: the
// runtime's state, plan mode, a warning.
const keep = math.MaxInt

// statusPart is one part of the status bar's right side (the model, the
// thinking level, the runtime, …): its forms, the widest first, each
// whole, and for each the rank at which it gives way to the next form or,
// for the last, leaves the bar. A part whose last rank is keep stays.
type statusPart struct {
	forms []string
	ranks []int
	at    int // the form shown; len(forms) once left out
}

// part is a status bar part with one form.
func part(text string, rank int) statusPart {
	return statusPart{forms: []string{text}, ranks: []int{rank}}
}

// shortened is a part that first gives way to a shorter form (at rank
// first), which leaves at rank then; short "" or the same as text means
// there is no shorter form.
func shortened(text string, first int, short string, then int) statusPart {
	if short == "" || short == text {
		return part(text, then)
	}
	return statusPart{forms: []string{text, short}, ranks: []int{first, then}}
}

// fitParts joins the parts with " · " in width cells, as the chat's line
// above the input does (ADR 0053): while the line is too wide, the part
// with the lowest rank gives way, to its shorter form or out of the line,
// so what shows is always whole. Then what gave way comes back, the last
// first, where it fits now (the engine, left out before the model's
// source, fits beside the model without it). When only parts to keep are
// left and they are still too wide, the line is returned as it is, for
// the caller to wrap.
func fitParts(parts []statusPart, width int) string {
	join := func() string {
		var texts []string
		for _, p := range parts {
			if p.at < len(p.forms) {
				texts = append(texts, p.forms[p.at])
			}
		}
		return strings.Join(texts, " · ")
	}
	fits := func() bool { return ansi.StringWidth(join()) <= width }
	type step struct{ part, from int }
	var steps []step
	for !fits() {
		low := -1
		for i, p := range parts {
			if p.at < len(p.forms) && p.ranks[p.at] != keep && (low < 0 || p.ranks[p.at] < parts[low].ranks[parts[low].at]) {
				low = i
			}
		}
		if low < 0 {
			break
		}
		steps = append(steps, step{low, parts[low].at})
		parts[low].at++
	}
	for k := len(steps) - 1; k >= 0; k-- {
		s := steps[k]
		if parts[s.part].at != s.from+1 {
			continue // a later step of the part stayed: this one stays too
		}
		if parts[s.part].at = s.from; !fits() {
			parts[s.part].at = s.from + 1
		}
	}
	return join()
}

// withoutReason is a thinking level without the reason after it
// ("off (model)": off because the model does not think): "off".
func withoutReason(level string) string {
	if i := strings.Index(level, " ("); i > 0 {
		return level[:i]
	}
	return level
}
