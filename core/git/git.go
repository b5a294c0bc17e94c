// Package git runs the user's git for pi-tui, hardened against the
// repository's own configuration: a repository's .git/config (and the
// files it includes, and a worktree's config.worktree) can name programs
// git runs by itself (filters, merge drivers, textconv, signing programs,
// hooks, fsmonitor, ssh commands …). None of those ever runs from a pi-tui
// git call; programs named by the user's own global or system config
// still do. See docs/adr for the rule and the keys it covers.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// minMajor, minMinor is the oldest git that has everything used here
// (git worktree remove came with 2.17).
const minMajor, minMinor = 2, 17

// Git runs the user's git with a clean environment: no pager, no prompts,
// no colour, and none of the GIT_DIR-like variables a parent process (a
// hook, another tool) may have left, which would point git elsewhere.
type Git struct {
	bin     string
	version string
	env     []string
	timeout time.Duration
}

// Options configure Find.
type Options struct {
	// Env reads the environment git gets its identity, home and path
	// from; nil means none at all.
	Env func(string) string
	// Timeout bounds one git command; 0 means two minutes (a checkout of
	// a large repository).
	Timeout time.Duration
}

// kept are the variables passed on to git: where it finds itself and the
// user's configuration, and the commit identity when set.
var kept = []string{"PATH", "HOME", "USER", "LOGNAME", "XDG_CONFIG_HOME", "TMPDIR", "GNUPGHOME", "SSH_AUTH_SOCK",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"}

// Find locates git on the PATH and checks its version once.
func Find(ctx context.Context, opts Options) (*Git, error) {
	if opts.Env == nil {
		opts.Env = func(string) string { return "" }
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	env := []string{"LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_OPTIONAL_LOCKS=0"}
	for _, k := range kept {
		if v := opts.Env(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	bin, err := lookPath(opts.Env("PATH"))
	if err != nil {
		return nil, err
	}
	g := &Git{bin: bin, env: env, timeout: opts.Timeout}
	out, err := g.Run(ctx, "", "--version")
	if err != nil {
		return nil, fmt.Errorf("git does not run (%s): %w", bin, err)
	}
	g.version = strings.TrimSpace(strings.TrimPrefix(out, "git version "))
	major, minor, ok := parseVersion(g.version)
	if !ok || major < minMajor || (major == minMajor && minor < minMinor) {
		return nil, fmt.Errorf("git %s is too old; pi-tui needs git %d.%d or newer", g.version, minMajor, minMinor)
	}
	return g, nil
}

// lookPath finds git on the given PATH (the process's when it is empty).
func lookPath(path string) (string, error) {
	if path == "" {
		if p, err := exec.LookPath("git"); err == nil {
			return p, nil
		}
	}
	for _, dir := range strings.Split(path, ":") {
		if dir == "" {
			continue
		}
		if p, err := exec.LookPath(dir + "/git"); err == nil {
			return p, nil
		}
	}
	return "", errors.New("git is not installed (or not on the PATH); install git and try again")
}

func parseVersion(v string) (major, minor int, ok bool) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return major, minor, err1 == nil && err2 == nil
}

// AtLeast reports whether git is at least major.minor.
func (g *Git) AtLeast(major, minor int) bool {
	ma, mi, ok := parseVersion(g.version)
	return ok && (ma > major || (ma == major && mi >= minor))
}

// Version is git's version ("2.39.5").
func (g *Git) Version() string { return g.version }

// Error is a git command that failed: what ran and the first line git
// said about it.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := FirstLine(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return "git " + strings.Join(e.Args, " ") + ": " + msg
}

func (e *Error) Unwrap() error { return e.Err }

// FirstLine is git's first meaningful line ("fatal: …" without the word).
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"fatal: ", "error: "} {
			l = strings.TrimPrefix(l, p)
		}
		if l != "" && !strings.HasPrefix(l, "hint:") {
			return l
		}
	}
	return ""
}

// hardened are the settings every git run gets. A repository's own
// .git/config can name programs git runs by itself (core.fsmonitor on a
// status or a checkout, hooks on a commit, merge or checkout, an external
// diff): a hostile repository must not run code because pi-tui listed its
// worktree sessions or merged one. So no fsmonitor, no hooks and no
// external diff, ever; a user who wants their hooks commits with git
// themselves. Optional locks are off so a background status never takes
// the index lock from the user's own git.
var hardened = []string{"--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
	"-c", "diff.external=", "-c", "core.pager=cat", "-c", "color.ui=false", "-c", "core.quotePath=false"}

// Command returns git with args in dir ("" for anywhere), hardened as Run
// is, not started: for output read as it comes. The caller bounds it in
// time through ctx.
func (g *Git) Command(ctx context.Context, dir string, args ...string) (*exec.Cmd, error) {
	full := append(append([]string(nil), hardened...), args...)
	if dir != "" {
		full = append([]string{"-C", dir}, full...)
	}
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Env = g.env
	return cmd, nil
}

// Run runs git in dir ("" for anywhere) and returns its output; a
// failure is an *Error.
func (g *Git) Run(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	cmd, err := g.Command(ctx, dir, args...)
	if err != nil {
		return "", err
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("gave up after %s", g.timeout)
		}
		return out.String(), &Error{Args: args, Stderr: errb.String(), Err: err}
	}
	return out.String(), nil
}
