package inspector

import (
	"fmt"
	"strings"

	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/ui/common"
)

// On the pi engine the page shows pi's own account of what it sends the
// model (docs/adr/0069): the prompt and the tool declarations pi reported
// at its last request, and says when; before the first request, what pi
// has and what pi-tui will add.

// sentText says, after the size, whose prompt the page shows and when it
// was sent ("" on the built-in engine, whose prompt pi-tui builds).
func (p *Page) sentText() string {
	pc := p.in.Pi
	switch {
	case pc == nil:
		return ""
	case !pc.Sent.IsZero():
		return ", as pi sent it at " + pc.Sent.Local().Format("15:04:05") + " (the last prompt)"
	case pc.Known:
		return ", not sent yet: pi's prompt as pi has it now, with pi-tui's sections as the first prompt adds them"
	}
	return ", not sent yet: only pi-tui's sections are known until pi starts (it adds its own prompt and tools)"
}

// toolsLine names the tools sent with the prompt.
func (p *Page) toolsLine(pc *runtimes.PiContext) string {
	if !pc.Known {
		return "Tools: pi says which when it starts\n"
	}
	if len(pc.Tools) == 0 {
		return "Tools: none\n"
	}
	names := make([]string, len(pc.Tools))
	size := 0
	for i, t := range pc.Tools {
		names[i] = common.VisibleLine(t.Name)
		size += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return fmt.Sprintf("Tools (%d, %s of declarations): %s\n", len(pc.Tools), common.Plural(size, "byte"), strings.Join(names, ", "))
}

// toolsText is the tool declarations after the whole prompt, each as the
// request carried it: its name, description and parameter schema.
func (p *Page) toolsText() string {
	pc := p.in.Pi
	if pc == nil || len(pc.Tools) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n── tools sent with this prompt ──\n")
	for _, t := range pc.Tools {
		fmt.Fprintf(&b, "\n%s\n%s\nparameters: %s\n", t.Name, t.Description, string(t.Parameters))
	}
	return b.String()
}
