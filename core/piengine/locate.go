package piengine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/internal/capbuf"
)

// EnvPi names the environment variable that points pi-tui at a pi: an
// executable path (tests point it at wrappers around node and pi's
// cli.js). Without it pi is the `pi` on PATH.
const EnvPi = "PI_TUI_PI"

// Pi is one pi program pi-tui found: the command that runs it and the
// version it reported.
type Pi struct {
	Path    string   // the executable, absolute
	Args    []string // arguments before pi's own (none today)
	Version string   // "1.6.0"
	// Cached says Version came from the versions file, not from asking
	// this pi in this process: the launched pi must confirm it
	// (Locator.Settle).
	Cached bool
	stamp  stamp
}

// Argv is the command line that runs this pi with args after it.
func (p Pi) Argv(args ...string) []string {
	out := append([]string{p.Path}, p.Args...)
	return append(out, args...)
}

// The versions whose RPC this package speaks: 1.6.0 ≤ v < 2.0.0.
var (
	minVersion = [3]int{1, 6, 0}
	maxVersion = [3]int{2, 0, 0} // exclusive
)

// Bounds of `pi --version`. The time is a bound on a pi that hangs, not
// an expectation: node starting on a loaded machine (a build beside it, an
// SSH host's other users) was seen to take over 10 s, and a slow pi that
// would answer must not be taken for a broken one. The answer is kept
// across processes, so it is waited for once per pi.
const (
	versionTimeout  = 30 * time.Second
	versionMaxBytes = 4 << 10
)

// Locator finds pi and remembers each executable's version, keyed by its
// path and file stamp (size, modification time, inode), so that a pi that
// was upgraded in place is asked again and an unchanged one never twice.
// Its zero value is ready; it is safe for concurrent use.
type Locator struct {
	// Getenv reads the environment (PI_TUI_PI, PATH); nil: os.Getenv.
	Getenv func(string) string
	// VersionsFile keeps confirmed versions across processes (versions.go);
	// "": this process's memory only.
	VersionsFile string

	mu    sync.Mutex
	known map[stamp]versionResult
}

type stamp struct {
	path  string
	size  int64
	mtime int64
	ino   uint64
}

type versionResult struct {
	version string
	err     error
	cached  bool // from the versions file, not yet confirmed by a launch
	// confirmed: a pi launched in this process reported this version.
	confirmed bool
}

// Find returns the pi to run, with its version checked: the command in
// PI_TUI_PI, else `pi` on PATH. Every error is one line saying what is
// wrong and, for an unsupported pi, which version it is.
func (l *Locator) Find(ctx context.Context) (Pi, error) {
	getenv := l.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	path, err := lookPi(getenv)
	if err != nil {
		return Pi{}, err
	}
	st, err := stampOf(path)
	if err != nil {
		return Pi{}, err
	}
	l.mu.Lock()
	r, ok := l.known[st]
	l.mu.Unlock()
	if !ok && l.VersionsFile != "" {
		if v, found := lookupVersion(l.VersionsFile, st); found {
			r, ok = versionResult{version: v, cached: true}, true
			l.remember(st, r)
		}
	}
	if !ok {
		v, err := Version(ctx, path)
		if ctx.Err() != nil && err != nil {
			return Pi{}, err // cancelled: nothing learned about this pi
		}
		r = versionResult{version: v, err: err}
		l.remember(st, r)
	}
	if r.err != nil {
		return Pi{}, r.err
	}
	if err := Supported(r.version, path); err != nil {
		return Pi{}, err
	}
	return Pi{Path: path, Version: r.version, Cached: r.cached, stamp: st}, nil
}

func (l *Locator) remember(st stamp, r versionResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.known == nil {
		l.known = map[stamp]versionResult{}
	}
	l.known[st] = r
}

// Settle takes the version a launched pi reported itself (the bridge's
// hello; "" when it could not tell). A match confirms p's version: it is
// written to the versions file, so the next process need not ask. A
// cached version the running pi does not confirm is forgotten, and Settle
// returns engine.ErrVersionChanged: the caller ends that pi before sending it
// anything and finds pi again. An asked version that the running pi
// reports otherwise is not written, so it stays asked in every process.
func (l *Locator) Settle(p Pi, running string) error {
	if running == p.Version && running != "" {
		l.mu.Lock()
		r, ok := l.known[p.stamp]
		first := ok && !r.confirmed
		if ok {
			r.cached, r.confirmed = false, true
			l.known[p.stamp] = r
		}
		l.mu.Unlock()
		if first && !p.Cached && l.VersionsFile != "" {
			storeVersion(l.VersionsFile, p.stamp, p.Version)
		}
		return nil
	}
	if !p.Cached {
		return nil
	}
	l.mu.Lock()
	delete(l.known, p.stamp)
	l.mu.Unlock()
	if l.VersionsFile != "" {
		storeVersion(l.VersionsFile, p.stamp, "")
	}
	if running == "" {
		return fmt.Errorf("%w: the pi at %s did not say its version", engine.ErrVersionChanged, p.Path)
	}
	return fmt.Errorf("%w: the pi at %s was %s and now runs %s", engine.ErrVersionChanged, p.Path, p.Version, printable([]byte(running), 40))
}

// lookPi resolves PI_TUI_PI or `pi` on PATH to an absolute executable.
func lookPi(getenv func(string) string) (string, error) {
	if p := getenv(EnvPi); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %v", EnvPi, p, err)
		}
		if err := executable(abs); err != nil {
			return "", fmt.Errorf("%s=%s: %v", EnvPi, p, err)
		}
		return abs, nil
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would run a repository's own "pi"
		}
		cand := filepath.Join(dir, "pi")
		if executable(cand) == nil {
			return cand, nil
		}
	}
	return "", errors.New("pi not found: install pi (npm install -g @earendil-works/pi-coding-agent) or set " + EnvPi + " to its path")
}

// executable says why path cannot be run, or nil.
func executable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errors.New("no such file")
	case err != nil:
		return err
	case fi.IsDir():
		return errors.New("a directory, not an executable")
	case !fi.Mode().IsRegular():
		return errors.New("not a regular file")
	case fi.Mode().Perm()&0o111 == 0:
		return errors.New("not executable")
	}
	return nil
}

// Version runs `path --version` (10 s, 4 KiB of output at most) and
// returns the version it printed.
func Version(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	out := capbuf.New(versionMaxBytes)
	errOut := capbuf.New(versionMaxBytes)
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.Env = append(os.Environ(), quietEnv...)
	cmd.WaitDelay = time.Second
	setGroup(cmd)
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("pi at %s did not answer --version within %v", path, versionTimeout)
	}
	if err != nil {
		line := lastLine(errOut.Bytes())
		if line == "" {
			line = lastLine(out.Bytes())
		}
		if line == "" {
			return "", fmt.Errorf("pi at %s: --version failed (%v)", path, err)
		}
		return "", fmt.Errorf("pi at %s: --version failed (%v): %s", path, err, line)
	}
	v := strings.TrimPrefix(strings.TrimSpace(lastLine(out.Bytes())), "v")
	if _, ok := parseVersion(v); !ok {
		return "", fmt.Errorf("%s does not look like pi: its --version printed %s, not a version", path, quoteShort(out.Bytes()))
	}
	return v, nil
}

// Supported says nil for a version whose RPC pi-tui speaks, else why not,
// naming the version and the program.
func Supported(version, path string) error {
	v, ok := parseVersion(version)
	if ok && !less(v, minVersion) && less(v, maxVersion) {
		return nil
	}
	return fmt.Errorf("pi %s at %s speaks an RPC pi-tui does not support; pi-tui needs pi 1.6 or later 1.x", version, path)
}

// parseVersion reads "1.6.0", "1.6.0-beta.1" or "1.6.0+build" into its
// three numbers (a pre-release counts as its release).
func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || p[0] == '+' {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// lastLine is the last non-empty line of b, trimmed, with control
// characters shown escaped and at most 200 bytes.
func lastLine(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if l := bytes.TrimSpace(lines[i]); len(l) > 0 {
			return printable(l, 200)
		}
	}
	return ""
}

func quoteShort(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	// The first line is enough to tell what answered; printable shows its
	// control characters, so the quotes are added, not strconv's escapes.
	first, _, more := bytes.Cut(b, []byte("\n"))
	s := "\"" + printable(bytes.TrimSpace(first), 80) + "\""
	if more {
		s += " …"
	}
	return s
}

// printable cuts b to max bytes (on a rune boundary) and escapes control
// characters, so a hostile program's output cannot drive the terminal.
func printable(b []byte, max int) string {
	var sb strings.Builder
	for _, r := range string(b) {
		if sb.Len() >= max {
			sb.WriteString("…")
			break
		}
		switch {
		case r == '\t':
			sb.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&sb, "\\x%02x", r)
		case r == 0xfffd:
			sb.WriteRune('?')
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}
