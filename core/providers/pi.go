package providers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/piengine"
	"github.com/pi-tui/pi-tui/internal/capbuf"
)

// Pi runs pi's own commands for providers and MCP servers: pi owns the
// logins, the key store and mcp.json, pi-tui only asks and shows.
type Pi struct {
	// Argv runs pi (the engine.Found the pi engine located).
	Argv []string
	// AgentDir is pi's agent dir, given to pi as PI_CODING_AGENT_DIR.
	AgentDir string
	// Env is the environment the commands start from (nil: this
	// process's).
	Env []string
	// Dir is where the commands run: a project's folder for pi mcp (its
	// .pi/mcp.json, when trusted); "" runs them in the agent dir.
	Dir string
}

// Bounds of the commands pi-tui reads the answer of.
const (
	readTimeout  = 30 * time.Second
	maxPiOutput  = 4 << 20
	maxErrOutput = 64 << 10
)

// Command is pi with args, to run in the terminal the user is in (a
// login reads the terminal): the caller connects its standard streams.
func (p Pi) Command(ctx context.Context, args ...string) *exec.Cmd {
	argv := append(slices.Clone(p.Argv), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = piengine.CommandEnv(p.Env, p.AgentDir)
	cmd.Dir = p.Dir
	if cmd.Dir == "" {
		cmd.Dir = p.AgentDir
	}
	return cmd
}

// run runs pi with args and no input, and returns what it printed, its
// exit status and an error only when it could not run or overran its
// bounds.
func (p Pi) run(ctx context.Context, args ...string) (stdout, stderr []byte, code int, err error) {
	if len(p.Argv) == 0 {
		return nil, nil, 0, errors.New("no pi to run")
	}
	if p.Dir == "" {
		// The commands run in pi's agent dir (Command), which a new
		// user's pi has not made yet: made here as pi makes it.
		if err := os.MkdirAll(p.AgentDir, 0o700); err != nil {
			return nil, nil, 0, fmt.Errorf("make pi's agent dir: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	cmd := p.Command(ctx, args...)
	out, errOut := capbuf.New(maxPiOutput), capbuf.New(maxErrOutput)
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, nil, 0, fmt.Errorf("pi %s did not finish within %v", strings.Join(args[:min(2, len(args))], " "), readTimeout)
	}
	if out.Over() {
		return nil, nil, 0, fmt.Errorf("pi %s printed more than %d bytes", strings.Join(args[:min(2, len(args))], " "), maxPiOutput)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.Bytes(), errOut.Bytes(), ee.ExitCode(), nil
	}
	if err != nil {
		return nil, nil, 0, fmt.Errorf("run pi: %w", err)
	}
	return out.Bytes(), errOut.Bytes(), 0, nil
}

// ListModels is `pi --list-models` offline: the models of every provider
// pi has credentials for, extension-registered ones included, by
// provider. Offline and with project files ignored: listing refreshes no
// catalogue and no login, and a repository's .pi is never loaded.
func (p Pi) ListModels(ctx context.Context) (map[string][]string, error) {
	out, errOut, code, err := p.run(ctx, "--offline", "--no-approve", "--list-models")
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, fmt.Errorf("pi --list-models failed (exit status %d): %s", code, firstLine(errOut))
	}
	return parseModelTable(out), nil
}

// parseModelTable reads --list-models' table: a header line starting
// "provider", then one model a line, provider and id first. Any other
// line (pi's "No models available" advice) is skipped.
func parseModelTable(out []byte) map[string][]string {
	models := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), maxPiOutput)
	header := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 2 && f[0] == "provider" && f[1] == "model":
			header = true
		case header && len(f) >= 2:
			models[f[0]] = append(models[f[0]], f[1])
		}
	}
	return models
}

// LoginProviders are the providers `pi auth login` can log in to (an
// account or an API key pi stores), as pi lists them for a name it does
// not know: pi 1.6 has no command that lists them otherwise (ADR 0071).
func (p Pi) LoginProviders(ctx context.Context) ([]string, error) {
	_, errOut, _, err := p.run(ctx, "auth", "login", "?")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(errOut), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "Providers:"); ok {
			var names []string
			for _, n := range strings.Split(rest, ",") {
				if n = strings.TrimSpace(n); n != "" {
					names = append(names, n)
				}
			}
			return names, nil
		}
	}
	return nil, fmt.Errorf("pi auth login did not list its providers: %s", firstLine(errOut))
}

// Check is `pi auth check --json --no-refresh` for one provider.
type Check struct {
	Status   string `json:"status"` // ready, not_ready, invalid
	Provider string `json:"provider"`
	AuthType string `json:"authType"` // api_key, oauth, …
	Reason   string `json:"reason"`
}

// Check asks pi whether provider is ready, refreshing nothing. It never
// asks for the credential itself.
func (p Pi) Check(ctx context.Context, provider string) (Check, error) {
	out, errOut, _, err := p.run(ctx, "auth", "check", "--provider", provider, "--json", "--no-refresh")
	if err != nil {
		return Check{}, err
	}
	var c Check
	if json.Unmarshal(bytes.TrimSpace(out), &c) != nil || c.Status == "" {
		return Check{}, fmt.Errorf("pi auth check gave no answer: %s", firstLine(errOut))
	}
	return c, nil
}

// firstLine is the first non-empty line of what a command printed,
// bounded; "" says it printed nothing.
func firstLine(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			return l
		}
	}
	return "it printed nothing"
}
