package common

import "github.com/pi-tui/pi-tui/core/memory"

// Group writes n with thousands separators (32,768), as every screen
// shows byte counts.
func Group(n int) string { return memory.GroupDigits(n) }
