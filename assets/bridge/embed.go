// Package bridge holds pi-tui's bridge extension for pi, the TypeScript
// file pi loads with -e (core/bridge writes it to the data dir).
package bridge

import _ "embed"

// Source is pi-tui-bridge.ts.
//
//go:embed pi-tui-bridge.ts
var Source []byte

// Name is the file name pi loads.
const Name = "pi-tui-bridge.ts"
