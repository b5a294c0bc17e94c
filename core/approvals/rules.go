// Package approvals holds the user's "always allow" rules: per project, a
// bash command (exact, or a prefix of words) or a file path glob for write
// and edit that runs without asking. The rules live in pi-tui's own store,
// keyed by the project's root; the file pi-tui writes next to the
// project's settings (.pi/pi-tui-approvals.json) is a copy for the user to
// read and is never read back, so a repository that ships one approves
// nothing (ADR 0028) — and keeps its file: pi-tui writes the copy only
// where none is or its own (marked "writtenBy": "pi-tui") is.
package approvals

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/pi-tui/pi-tui/internal/pathglob"
)

// Tools that rules can cover. Other tools never match a rule.
const (
	ToolBash  = "bash"
	ToolWrite = "write"
	ToolEdit  = "edit"
)

// Rule allows one tool's calls without asking.
type Rule struct {
	Tool string `json:"tool"`
	// Pattern is, for bash, a command matched exactly, or a prefix of
	// words ending in " *" or ":*" (Claude Code's "go test:*") that matches
	// the command with any arguments after it. For write and edit it is a
	// path glob relative to the project folder, "/"-separated: * and ?
	// within one name, ** for any number of folders.
	Pattern string `json:"pattern"`
}

func (r Rule) String() string { return r.Tool + " " + r.Pattern }

// prefixOf returns a bash pattern's prefix and true when it is a prefix
// rule ("go test *", "go test:*").
func prefixOf(pattern string) (string, bool) {
	for _, suf := range []string{" *", ":*"} {
		if p, ok := strings.CutSuffix(pattern, suf); ok {
			return strings.TrimRight(p, " \t"), true
		}
	}
	return "", false
}

// HasMeta reports whether a command contains anything that lets one
// command line run more than one command, or another one than its words
// say: separators (; & | newline), substitutions ($ and backquotes),
// redirections (< >), grouping and subshells, escapes, and control
// characters. Such a command is only ever matched by an exact rule.
func HasMeta(cmd string) bool {
	for _, r := range cmd {
		switch {
		case strings.ContainsRune(";&|<>$`(){}\\\n\r", r):
			return true
		case r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029'):
			return true
		}
	}
	return false
}

// Validate says, in one sentence, why a rule cannot be kept; nil when it
// can.
func (r Rule) Validate() error {
	p := r.Pattern
	if strings.TrimSpace(p) == "" {
		return errors.New("the pattern is empty")
	}
	for _, c := range p {
		if c != '\t' && unicode.IsControl(c) || c == '\u2028' || c == '\u2029' {
			return errors.New("the pattern has a line break or control character")
		}
	}
	switch r.Tool {
	case ToolBash:
		if pre, ok := prefixOf(p); ok {
			switch {
			case strings.TrimSpace(pre) == "":
				return errors.New("a prefix rule needs at least one word before the *")
			case HasMeta(pre):
				return errors.New("a prefix rule cannot contain ; & | $ ` < > ( ) { } or \\: those could run another command")
			case strings.ContainsAny(pre, "*?"):
				return errors.New("only the final \" *\" may be a wildcard in a command rule")
			}
		}
		return nil
	case ToolWrite, ToolEdit:
		if strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
			return errors.New("a path rule is relative to the project folder and uses /")
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == "" || seg == "." || seg == ".." {
				return fmt.Errorf("a path rule cannot have an empty, . or .. part: %q", p)
			}
			if _, err := path.Match(seg, ""); err != nil {
				return fmt.Errorf("the path rule %q is not a valid glob", p)
			}
		}
		return nil
	}
	return fmt.Errorf("rules cover bash, write and edit, not %q", r.Tool)
}

// Matches reports whether the rule allows a call of tool on subject: the
// command for bash, for write and edit the file's path relative to the
// project folder ("/"-separated, canonical: no . or .. parts). An invalid
// rule matches nothing.
func (r Rule) Matches(tool, subject string) bool {
	if tool != r.Tool || r.Validate() != nil {
		return false
	}
	switch tool {
	case ToolBash:
		return matchCommand(r.Pattern, subject)
	case ToolWrite, ToolEdit:
		return matchPath(strings.Split(r.Pattern, "/"), subject)
	}
	return false
}

// matchCommand matches a command: exactly (spaces around it ignored), or
// a prefix rule's words followed by nothing or by a space and anything
// without shell metacharacters. Only spaces and tabs around it are
// ignored: a line break is a metacharacter, never trimmed away.
func matchCommand(pattern, cmd string) bool {
	cmd = strings.Trim(cmd, " \t")
	pre, isPrefix := prefixOf(pattern)
	if !isPrefix {
		return cmd == strings.Trim(pattern, " \t")
	}
	pre = strings.Trim(pre, " \t")
	if HasMeta(cmd) || !strings.HasPrefix(cmd, pre) {
		return false
	}
	rest := cmd[len(pre):]
	return rest == "" || rest[0] == ' ' || rest[0] == '\t'
}

// matchPath matches a relative path against glob segments; ** matches any
// number of folders (none too).
func matchPath(globs []string, rel string) bool {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return false
	}
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return false
		}
	}
	return pathglob.Match(globs, parts)
}

// Suggest is the rule the approval dialog offers for a call, for the user
// to edit before saving: the exact command (a prefix rule is one " *"
// away), or the file's path.
func Suggest(tool, subject string) Rule {
	return Rule{Tool: tool, Pattern: strings.Trim(subject, " \t")}
}

// Covers reports whether any rule allows the call, and which.
func Covers(rules []Rule, tool, subject string) (Rule, bool) {
	for _, r := range rules {
		if r.Matches(tool, subject) {
			return r, true
		}
	}
	return Rule{}, false
}
