package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// How long a key command may run and how much it may print.
const (
	keyCommandTimeout   = 10 * time.Second
	maxKeyCommandOutput = 64 << 10
)

// CommandCache remembers what key commands (!command values) printed, so
// a command runs once per cache rather than once per model call, as pi
// runs it once per process. Failures are not remembered: a locked
// password manager is asked again next time. The zero value is not
// usable; use NewCommandCache.
type CommandCache struct {
	mu  sync.Mutex
	out map[string]string
}

// NewCommandCache returns an empty cache.
func NewCommandCache() *CommandCache { return &CommandCache{out: map[string]string{}} }

func (c *CommandCache) get(cmd string) (string, bool) {
	if c == nil {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.out[cmd]
	return v, ok
}

func (c *CommandCache) put(cmd, v string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out[cmd] = v
}

// valueError says why a configuration value gave no text. It never holds
// the value itself or what a command printed.
type valueError struct {
	msg    string
	setVar string // the variable to set, when one is missing
}

func (e *valueError) Error() string { return e.msg }

// valueLooksSet reports, without running anything, whether a value will
// probably give text: a command counts as set; a variable's name, $VAR or
// ${VAR} need the variable. missing names the first unset variable.
func valueLooksSet(v string, env func(string) string) (ok bool, missing string) {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return false, ""
	case strings.HasPrefix(v, "!"):
		return true, ""
	case isEnvName(v):
		if env(v) == "" {
			return false, v
		}
		return true, ""
	}
	if _, err := interpolate(v, env); err != nil {
		var ve *valueError
		if errors.As(err, &ve) {
			return false, ve.setVar
		}
		return false, ""
	}
	return true, ""
}

// resolveValue turns a value of auth.json's key, models.json's apiKey or a
// header into its text, as pi reads it: "!command" runs the command in the
// user's shell and takes what it prints (trimmed); a value that is the
// name of a set environment variable is that variable's value (pi 0.73);
// $VAR and ${VAR} inside the value are replaced, with $$ and $! writing $
// and ! (pi 0.85); anything else is the text itself. A value written as a
// variable's name (capitals, digits, _) whose variable is unset gives
// nothing, with an error saying to set it, rather than being sent as a
// key. what names the value for errors ("auth.json's key for openai").
func resolveValue(ctx context.Context, v, what string, env func(string) string, cache *CommandCache) (string, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return "", nil
	case strings.HasPrefix(v, "!"):
		return runKeyCommand(ctx, v[1:], what, env, cache)
	case isEnvName(v):
		if s := strings.TrimSpace(env(v)); s != "" {
			return s, nil
		}
		return "", &valueError{msg: fmt.Sprintf("%s names %s, which is not set", what, v), setVar: v}
	}
	if s := strings.TrimSpace(env(v)); s != "" && isVarLike(v) {
		return s, nil // a lower-case variable's name, read as pi 0.73 reads it
	}
	s, err := interpolate(v, env)
	if err != nil {
		var ve *valueError
		if errors.As(err, &ve) {
			ve.msg = what + " " + ve.msg
		}
		return "", err
	}
	return s, nil
}

// interpolate replaces $VAR and ${VAR}; $$ and $! stand for $ and !. A $
// before anything else is kept.
func interpolate(v string, env func(string) string) (string, error) {
	if !strings.Contains(v, "$") {
		return v, nil
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '$' || i+1 >= len(v) {
			b.WriteByte(c)
			continue
		}
		next := v[i+1]
		switch {
		case next == '$' || next == '!':
			b.WriteByte(next)
			i++
		case next == '{':
			end := strings.IndexByte(v[i+2:], '}')
			if end < 0 || !isVarLike(v[i+2:i+2+end]) {
				b.WriteByte(c)
				continue
			}
			name := v[i+2 : i+2+end]
			val := env(name)
			if val == "" {
				return "", &valueError{msg: fmt.Sprintf("reads ${%s}, which is not set", name), setVar: name}
			}
			b.WriteString(val)
			i += 2 + end
		case next == '_' || next >= 'A' && next <= 'Z' || next >= 'a' && next <= 'z':
			j := i + 1
			for j < len(v) && (v[j] == '_' || v[j] >= 'A' && v[j] <= 'Z' || v[j] >= 'a' && v[j] <= 'z' || v[j] >= '0' && v[j] <= '9') {
				j++
			}
			name := v[i+1 : j]
			val := env(name)
			if val == "" {
				return "", &valueError{msg: fmt.Sprintf("reads $%s, which is not set", name), setVar: name}
			}
			b.WriteString(val)
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String()), nil
}

// isVarLike reports whether s can name an environment variable in any
// case.
func isVarLike(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// errTooMuchOutput stops a key command that prints more than a key.
var errTooMuchOutput = errors.New("too much output")

// capWriter keeps at most max bytes and fails the write that would pass
// it, which ends the copy from the command's pipe.
type capWriter struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.max {
		w.over = true
		return 0, errTooMuchOutput
	}
	return w.buf.Write(p)
}

// userShell is $SHELL when it names an absolute path, else /bin/sh.
func userShell(env func(string) string) string {
	if s := strings.TrimSpace(env("SHELL")); filepath.IsAbs(s) {
		if fi, err := os.Stat(s); err == nil && fi.Mode().IsRegular() {
			return s
		}
	}
	return "/bin/sh"
}

// runKeyCommand runs a !command for a key: in the user's shell, with no
// input, its error output dropped, at most keyCommandTimeout (or until ctx
// ends) and at most maxKeyCommandOutput bytes of output. What it prints is
// the key; it never appears in an error.
func runKeyCommand(ctx context.Context, command, what string, env func(string) string, cache *CommandCache) (string, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return "", &valueError{msg: what + " is a ! with no command after it"}
	}
	if v, ok := cache.get(command); ok {
		return v, nil
	}
	cctx, cancel := context.WithTimeout(ctx, keyCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, userShell(env), "-c", command)
	out := &capWriter{max: maxKeyCommandOutput}
	cmd.Stdout = out
	cmd.Stdin = nil
	cmd.Stderr = nil
	cmd.WaitDelay = time.Second
	killGroup(cmd)
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case cctx.Err() != nil:
		return "", &valueError{msg: fmt.Sprintf("the command in %s did not finish within %s", what, keyCommandTimeout)}
	case out.over || errors.Is(err, errTooMuchOutput):
		return "", &valueError{msg: fmt.Sprintf("the command in %s printed more than %d KiB", what, maxKeyCommandOutput>>10)}
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", &valueError{msg: fmt.Sprintf("the command in %s failed (%s); run it in a shell to see why", what, ee.ProcessState.String())}
		}
		return "", &valueError{msg: fmt.Sprintf("the command in %s could not run", what)}
	}
	v := strings.TrimSpace(out.buf.String())
	if v == "" {
		return "", &valueError{msg: fmt.Sprintf("the command in %s printed nothing", what)}
	}
	cache.put(command, v)
	return v, nil
}
