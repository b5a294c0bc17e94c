// Package assets holds the files pi-tui ships inside its binary: the
// starter AGENTS.md a project gets when it has none, the provider
// guidance templates a user can copy into the agent dir, and the bridge
// extension pi loads when it runs as a pi-tui runtime.
package assets

import "embed"

// StarterAgents is written to R/AGENTS.md when a user opens the editor on a
// project that has no AGENTS.md yet. It is a scaffold to fill in, not rules.
//
//go:embed AGENTS.md
var StarterAgents string

// Templates holds CLAUDE.md, CODEX.md and GEMINI.md under templates/.
//
//go:embed templates/*.md
var Templates embed.FS

// BridgeSource is pi-tui's bridge extension for pi, the TypeScript file
// pi loads with -e (core/bridge writes it to the data dir).
//
//go:embed bridge/pi-tui-bridge.ts
var BridgeSource []byte

// BridgeName is the file name pi loads.
const BridgeName = "pi-tui-bridge.ts"
