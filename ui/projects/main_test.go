package projects_test

import (
	"os"
	"testing"

	"github.com/pi-tui/pi-tui/internal/screentest"
)

// TestMain sets the colour profile once, before the parallel tests start.
func TestMain(m *testing.M) { os.Exit(screentest.Main(m)) }
