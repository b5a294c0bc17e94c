package instructions

import "strings"

// Which directory entries a root chain is read from, for a watcher that
// must tell a change to the chain from any other file's (ADR 0084): a
// README.md saved beside AGENTS.md changes nothing a runtime was given.
// Names compare without regard to case, so a file a case-insensitive
// disk answers for AGENTS.md counts too; a name counted by mistake costs
// one resolution that finds the chain unchanged.

// ReadsInRoot reports whether the entry name, directly in a project
// root, is one the root chain may be read from: an instruction
// candidate (for .claude/CLAUDE.md, the .claude folder) or one of the
// model's provider files.
func (r *Resolver) ReadsInRoot(name string) bool {
	for _, c := range candidateNames {
		if first, _, _ := strings.Cut(c, "/"); strings.EqualFold(name, first) {
			return true
		}
	}
	return r.isProviderFile(name)
}

// ReadsInAgentDir reports the same of an entry directly in the agent
// directory: the global AGENTS.md, one of the model's provider files, or
// the guidance file that decides which those are.
func (r *Resolver) ReadsInAgentDir(name string) bool {
	return strings.EqualFold(name, globalName) || strings.EqualFold(name, GuidanceFile) || r.isProviderFile(name)
}

func (r *Resolver) isProviderFile(name string) bool {
	for _, f := range r.files {
		if strings.EqualFold(name, f) {
			return true
		}
	}
	return false
}
