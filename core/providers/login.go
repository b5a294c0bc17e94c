package providers

import (
	"context"
	"fmt"
	"slices"

	"github.com/pi-tui/pi-tui/core/engine"
)

// FindPi finds the user's pi with locate (the Locate of the engine that
// keeps the logins, core/engine: PI_TUI_PI, else pi on PATH, version
// checked) as a Pi for agentDir; when there is none, problem says why
// and what to install.
func FindPi(ctx context.Context, locate func(context.Context) (engine.Found, error), agentDir string) (pi *Pi, problem string) {
	if locate == nil {
		return nil, "no engine of this pi-tui runs a program that keeps provider logins"
	}
	found, err := locate(ctx)
	if err != nil {
		return nil, err.Error()
	}
	return &Pi{Argv: found.Argv, AgentDir: agentDir}, ""
}

// NoBrowserByDefault says a login should not open a browser: over SSH
// the browser would open on the wrong machine (or none), so pi's other
// method (a device code, a pasted redirect URL) is the default there.
func NoBrowserByDefault(getenv func(string) string) bool {
	return getenv("SSH_CONNECTION") != "" || getenv("SSH_CLIENT") != "" || getenv("SSH_TTY") != ""
}

// LoginPlan is how pi logs in to a provider, in the terminal the user is
// in.
type LoginPlan struct {
	// Args are pi's arguments.
	Args []string
	// InPi: pi auth login cannot reach the provider (a pi extension
	// registers it, and pi auth does not load extensions), so pi's own
	// TUI opens and Note says what to type there.
	InPi bool
	Note string
}

// PlanLogin says how to log in to name: `pi auth login` for a provider
// pi lists there, pi's own /login for one a pi extension registers
// (extension says the caller asked for that, for a name pi auth does not
// know). An API key is read by pi, without echo, and stored by pi.
func PlanLogin(st State, name string, apiKey, noBrowser, extension bool) (LoginPlan, error) {
	p, known := st.Find(name)
	switch {
	case known && p.Login:
		args := []string{"auth", "login", name}
		if apiKey {
			args = append(args, "--api-key") // pi refuses --no-browser with it: a key needs no browser
		} else if noBrowser {
			args = append(args, "--no-browser")
		}
		return LoginPlan{Args: args}, nil
	case known && slices.Contains(p.Known, KnownExtension) || extension:
		return LoginPlan{Args: []string{"--no-session"}, InPi: true,
			Note: fmt.Sprintf("A provider a pi extension registers is logged in to inside pi (pi auth login loads no extensions): pi opens; type /login %s there, then /quit to come back", name)}, nil
	case known && !p.Login:
		return LoginPlan{}, fmt.Errorf("%s has no login in pi: %s", name, p.Need)
	}
	return LoginPlan{}, fmt.Errorf("pi knows no provider %q to log in to (pi-tui providers lists them)", name)
}

// LogoutArgs are pi's arguments to remove what pi stored for name (its
// login or key in auth.json); environment variables and models.json stay.
func LogoutArgs(name string) []string { return []string{"auth", "logout", name} }
