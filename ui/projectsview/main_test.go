package projectsview_test

import (
	"os"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// TestMain sets lipgloss's process-wide colour profile once, before any
// test runs: the tests run in parallel, and setting it as each starts
// would race with the others' rendering.
func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}
