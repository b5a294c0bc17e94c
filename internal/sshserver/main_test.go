package sshserver

import (
	"os"
	"testing"

	"github.com/pi-tui/pi-tui/internal/waitbound"
)

// TestMain runs up to eight tests at once: they wait on the server's
// timeouts (a flood is paced by the stall timeout, a login under one
// takes seconds) and use little CPU.
func TestMain(m *testing.M) { os.Exit(waitbound.Main(m, 8)) }
