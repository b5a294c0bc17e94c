package piengine

import (
	"context"
	"fmt"
	"os"

	"github.com/pi-tui/pi-tui/core/engine"
)

// Describe is the pi engine as the registry holds it (core/engine): what
// it can do, and loc to find the user's pi. The composition root builds
// one Locator a process and hands the same one to every user of this
// descriptor, so pi's version is asked once.
func Describe(loc *Locator) engine.Descriptor {
	return engine.Descriptor{Name: Name, Title: "pi",
		Caps: engine.Capabilities{Process: true, Models: true, Thinking: true, Commands: true, Calls: true, OwnPrompt: true, Logins: true},
		Locate: func(ctx context.Context) (engine.Found, error) {
			p, err := loc.Find(ctx)
			if err != nil {
				return engine.Found{}, err
			}
			return engine.Found{Path: p.Path, Argv: p.Argv(), Version: p.Version, Cached: p.Cached,
				Settle: func(reported string) error { return loc.Settle(p, reported) }}, nil
		},
		Unfound: func(err error) string {
			getenv := loc.Getenv
			if getenv == nil {
				getenv = os.Getenv
			}
			if getenv(EnvPi) == "" {
				return "" // pi on PATH, or none: auto's fallback is nothing to say
			}
			return fmt.Sprintf("%s names no pi that can run (%v)", EnvPi, err)
		},
	}
}

// FoundPi is the pi a Found of Describe's Locate names, as Launch takes
// it.
func FoundPi(f engine.Found) Pi {
	p := Pi{Path: f.Path, Version: f.Version, Cached: f.Cached}
	if len(f.Argv) > 1 {
		p.Args = f.Argv[1:]
	}
	return p
}
