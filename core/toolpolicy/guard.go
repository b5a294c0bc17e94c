package toolpolicy

import (
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// RunOnUse says, in one line for the approval dialog, why writing the
// file at canon (canonical, inside root) can run code without any bash
// approval: git runs hooks and reads core.fsmonitor from .git/, direnv
// runs .envrc, pi loads .pi/extensions and runs .pi/settings.json's
// shellPath, VS Code runs tasks. "" when the file is not one of those.
//
// The decision is made on the canonical path, so sub/../.git/config, a
// link to .git, or a link to a hook all count. Names are compared without
// case, since on a case-insensitive file system .GIT is .git.
func RunOnUse(root, canon string) string {
	rel, err := filepath.Rel(root, canon)
	if err != nil || rel == "." {
		return ""
	}
	if why := byName(rel); why != "" {
		return why
	}
	if why := inRepository(root, canon); why != "" {
		return why
	}
	return makesGitDir(root, canon)
}

// RunOnUseIn is RunOnUse in a project of several folders: the file is
// judged in the folder that holds it (root), and against the repository
// of every other folder too, since one checkout's core.hooksPath or
// include.path can name a file in another folder of the project
// (../shared/hooks), which the model reaches there as NAME:path.
func RunOnUseIn(folders confine.Folders, root, canon string) string {
	if why := RunOnUse(root, canon); why != "" {
		return why
	}
	for _, f := range folders {
		if f.Root == root {
			continue
		}
		if why := inRepository(f.Root, canon); why != "" {
			return why
		}
	}
	return ""
}

// inRepository says why canon is one of the files git runs or reads as
// configuration that live outside .git/ by name: the folder the
// repository's core.hooksPath names (.githooks/, tools/hooks: husky and
// friends set it), the files its config includes (a tracked
// devtools/git.cfg that include.path names), and the checkout's git dirs wherever its .git points
// (in a linked worktree .git is a file, and the config and hooks are in
// the repository's common git dir). A worktree so gets exactly the rules
// of its main checkout. "" otherwise, or outside a git checkout.
func inRepository(root, canon string) string {
	l, ok := readGitLayout(root)
	if !ok {
		return ""
	}
	for _, h := range l.hooks {
		if canon != h && fsutil.Within(h, canon) {
			return "it is in the repository's hooks folder (core.hooksPath), whose scripts git runs as programs"
		}
	}
	for _, inc := range l.includes {
		if canon == inc {
			return "the repository's git config includes this file (include.path), so git reads it as configuration: a change can run code at the next git command (core.fsmonitor, core.hooksPath)"
		}
	}
	for _, d := range []string{l.gitDir, l.common} {
		// A git dir holding the checkout itself (a worktree inside a bare
		// repository) would make every write ask; its own files are outside
		// the checkout, and a git dir planted in the project is caught by
		// its shape (makesGitDir).
		if fsutil.Within(d, canon) && !fsutil.Within(d, l.top) {
			return "it is inside the repository's git folder, which git reads as configuration and hooks: a change can run code at the next git command"
		}
	}
	return ""
}

// byName is RunOnUse's decision from the path alone.
func byName(rel string) string {
	parts := strings.Split(strings.ToLower(filepath.ToSlash(rel)), "/")
	last := len(parts) - 1
	for i, p := range parts {
		switch {
		case p == ".git" && i == last:
			return "a .git file tells git where the repository is, with its config and hooks: a change can make git run code"
		case p == ".git" && parts[i+1] == "hooks":
			return "it is a git hook (.git/hooks): git runs it as a program"
		case p == ".git":
			return "it is inside .git/, which git reads as configuration and hooks: a change can run code at the next git command (core.fsmonitor, core.hooksPath)"
		case p == ".husky" && i < last:
			return "it is under .husky/, whose scripts git runs as hooks"
		case p == ".pi" && i < last && parts[i+1] == "extensions":
			return "pi loads the files in .pi/extensions/ as code"
		}
	}
	switch {
	case parts[last] == ".envrc":
		return "direnv runs .envrc as a shell script when you enter the folder"
	case last > 0 && parts[last-1] == ".pi" && parts[last] == "settings.json":
		return ".pi/settings.json can set the shell pi runs commands with (shellPath, shellCommandPrefix)"
	case last > 0 && parts[last-1] == ".pi" && parts[last] == "pi-tui-approvals.json":
		return ".pi/pi-tui-approvals.json lists the commands pi-tui runs without asking: the agent must not approve itself"
	case last > 0 && parts[last-1] == ".vscode" && parts[last] == "tasks.json":
		return "VS Code can run the tasks in .vscode/tasks.json when the folder opens"
	}
	return ""
}
