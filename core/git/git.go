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
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// minMajor, minMinor is the oldest git that has everything used here
// (git worktree remove came with 2.17).
const minMajor, minMinor = 2, 17

// Git runs the user's git with a clean environment: no pager, no prompts,
// no colour, and none of the GIT_DIR-like variables a parent process (a
// hook, another tool) may have left, which would point git elsewhere; and
// with the programs the repository's own config names withheld (see
// core/toolpolicy/guard.go).
type Git struct {
	bin     string
	version string
	env     []string
	vars    map[string]string // the kept variables, by name
	timeout time.Duration

	mu     sync.Mutex
	guards map[string]*guard // by folder
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
	env := slices.Clone(fixedEnv)
	vars := map[string]string{}
	for _, k := range kept {
		if v := opts.Env(k); v != "" {
			env = append(env, k+"="+v)
			vars[k] = v
		}
	}
	bin, err := lookPath(opts.Env("PATH"))
	if err != nil {
		return nil, err
	}
	g := &Git{bin: bin, env: env, vars: vars, timeout: opts.Timeout, guards: map[string]*guard{}}
	out, err := g.plain(ctx, "", 4<<10, "--version")
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
	// Withheld are the programs of the repository's own config that the
	// command needed and pi-tui did not run, when the failure comes from
	// them.
	Withheld []Program

	cut bool // the output was over its bound
}

func (e *Error) Error() string {
	msg := FirstLine(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	msg = "git " + strings.Join(e.Args, " ") + ": " + msg
	if len(e.Withheld) > 0 {
		msg += "; " + WithheldSentence(e.Withheld)
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// WithheldSentence says which programs of the repository's config pi-tui
// did not run, and how to have them run.
func WithheldSentence(ps []Program) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.String()
	}
	it := "it"
	if len(ps) > 1 {
		it = "them"
	}
	return fmt.Sprintf("it needs %s, which the repository's own git config names, and pi-tui runs no program a repository's config names: run git yourself, or set %s in your global git config (git config --global) to trust %s",
		strings.Join(names, ", "), it, it)
}

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

// fixedEnv is the environment every git run starts from: no prompt, no
// pager, no editor (pi-tui gives every message on the command line), no
// optional locks (a background status never takes the index lock from
// the user's own git), and no transport that is not known to be safe
// (remote helpers the repository's URLs name are refused; ext:: is off in
// hardened too).
var fixedEnv = []string{"LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_OPTIONAL_LOCKS=0",
	"GIT_EDITOR=:", "GIT_SEQUENCE_EDITOR=:", "GIT_PROTOCOL_FROM_USER=0"}

// hardened are the settings every git run gets, whatever any config
// says. Hooks, fsmonitor and an external diff are programs git would run
// on its own; pi-tui runs none of them, not even the user's (a user who
// wants their hooks commits with git themselves). Submodules are not
// recursed into: a submodule's own config is another repository's, which
// pi-tui's overrides do not cover, so status and diff ignore what is
// uncommitted in a submodule and show its commits as a short line.
var hardened = []string{"--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
	"-c", "diff.external=", "-c", "core.pager=cat", "-c", "color.ui=false", "-c", "core.quotePath=false",
	"-c", "protocol.ext.allow=never", "-c", "submodule.recurse=false", "-c", "diff.ignoreSubmodules=dirty",
	"-c", "diff.submodule=short", "-c", "status.submoduleSummary=false"}

// Command returns git with args in dir ("" for the process's folder),
// hardened as Run is, not started: for output read as it comes. The
// caller bounds it in time through ctx. Reading the repository's config
// to harden it may run git (bounded by ctx and the Timeout).
func (g *Git) Command(ctx context.Context, dir string, args ...string) (*exec.Cmd, error) {
	cmd, _, err := g.command(ctx, dir, args)
	return cmd, err
}

func (g *Git) command(ctx context.Context, dir string, args []string) (*exec.Cmd, *guard, error) {
	gctx, cancel := context.WithTimeout(ctx, g.timeout)
	gd, err := g.guardFor(gctx, dir)
	cancel()
	if err != nil {
		return nil, nil, err
	}
	full := make([]string, 0, 2+len(hardened)+len(gd.args)+len(args))
	if dir != "" {
		full = append(full, "-C", dir)
	}
	full = append(append(append(full, hardened...), gd.args...), args...)
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Env = g.env
	return cmd, gd, nil
}

// Run runs git in dir ("" for the process's folder) and returns its
// output; a failure is an *Error.
func (g *Git) Run(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	cmd, gd, err := g.command(ctx, dir, args)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	errb := &limited{limit: maxStderr}
	cmd.Stdout, cmd.Stderr = &out, errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("gave up after %s", g.timeout)
		}
		return out.String(), &Error{Args: args, Stderr: errb.String(), Err: err, Withheld: gd.explain(errb.String())}
	}
	return out.String(), nil
}

// plain runs git with the fixed hardening only, for what reads no
// repository content (its version, its config, where the repository is),
// keeping at most limit bytes of output.
func (g *Git) plain(ctx context.Context, dir string, limit int, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	full := append(slices.Clone(hardened), args...)
	if dir != "" {
		full = append([]string{"-C", dir}, full...)
	}
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Env = g.env
	out, errb := &limited{limit: limit}, &limited{limit: maxStderr}
	cmd.Stdout, cmd.Stderr = out, errb
	err := cmd.Run()
	if err == nil && out.cut {
		err = errors.New("output over its bound")
	}
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("gave up after %s", g.timeout)
		}
		return "", &Error{Args: args, Stderr: errb.String(), Err: err, cut: out.cut}
	}
	return out.String(), nil
}

// maxStderr bounds what is kept of git's complaints.
const maxStderr = 64 << 10

// limited keeps the first limit bytes written to it and drops the rest,
// noting the cut.
type limited struct {
	bytes.Buffer
	limit int
	cut   bool
}

func (b *limited) Write(p []byte) (int, error) {
	room := b.limit - b.Len()
	if room < len(p) {
		b.cut = true
	}
	if room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
