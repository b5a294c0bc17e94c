package bridge

import (
	"fmt"
	"os"
	"path/filepath"
)

// Project resources: what pi 1.6 loads from a project only once the
// project is trusted, found as pi finds them, so pi-tui can say which of
// them pi loaded or declined (docs/adr/0064-pi-project-trust.md).

// trustGated are the entries of a project's .pi folder whose presence
// makes pi ask project_trust (pi 1.6's TRUST_REQUIRING_PROJECT_CONFIG_RESOURCES),
// in pi's order. A bare .pi folder asks nothing.
var trustGated = []string{"settings.json", "mcp.json", "extensions", "skills", "prompts", "themes", "SYSTEM.md", "APPEND_SYSTEM.md"}

// maxListed bounds the entries named per folder; the rest are counted.
const maxListed = 8

// ProjectResources lists the trust-gated resources pi finds for a process
// started in root: root/.pi's gated entries (a folder's own entries named
// one by one, up to maxListed) and every
// .agents/skills in root or a folder above it but home's. Paths are
// relative to root, with slashes. None: pi asks no trust question.
func ProjectResources(root, home string) []string {
	var out []string
	conf := filepath.Join(root, ".pi")
	for _, name := range trustGated {
		p := filepath.Join(conf, name)
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		out = append(out, listed(root, p, fi.IsDir())...)
	}
	userSkills := ""
	if home != "" {
		userSkills = filepath.Join(filepath.Clean(home), ".agents", "skills")
	}
	for dir := filepath.Clean(root); ; {
		p := filepath.Join(dir, ".agents", "skills")
		if p != userSkills {
			if fi, err := os.Stat(p); err == nil {
				out = append(out, listed(root, p, fi.IsDir())...)
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return out
}

// listed names p, a folder by its entries (or itself when it is empty or
// cannot be read).
func listed(root, p string, dir bool) []string {
	rel := relPath(root, p)
	if !dir {
		return []string{rel}
	}
	ents, err := os.ReadDir(p)
	if err != nil {
		return []string{rel + "/"}
	}
	if len(ents) == 0 {
		return []string{rel + "/"}
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name() // sorted by ReadDir
	}
	var out []string
	for i, n := range names {
		if i == maxListed {
			out = append(out, fmt.Sprintf("%s/… %d more", rel, len(names)-maxListed))
			break
		}
		out = append(out, rel+"/"+n)
	}
	return out
}

// relPath is p relative to root with slashes ("../.agents/skills" above
// it).
func relPath(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return p
}
