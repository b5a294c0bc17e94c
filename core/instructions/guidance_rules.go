package instructions

import "strings"

// ModelPatterns describes the model rules of agent-guidance.json in the
// order they are tried, as "pattern → files" ("(none)" for a rule that
// disables provider files), so Settings can show what is in effect.
func (g *Guidance) ModelPatterns() []string {
	out := make([]string, 0, len(g.models))
	for _, r := range g.models {
		files := strings.Join(r.files, ", ")
		if files == "" {
			files = "(none)"
		}
		out = append(out, r.pattern+" → "+files)
	}
	return out
}
