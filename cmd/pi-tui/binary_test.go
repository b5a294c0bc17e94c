package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// builtBinary is the pi-tui binary the tests that run the real program
// share: built once per test run of this package, on first need, and
// removed by TestMain.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
	if builtFakePi.dir != "" {
		os.RemoveAll(builtFakePi.dir)
	}
	os.Exit(code)
}

// buildBinary returns the path of the shared pi-tui binary.
func buildBinary(tb testing.TB) string {
	tb.Helper()
	builtBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "pi-tui-bin-")
		if err != nil {
			builtBinary.err = err
			return
		}
		builtBinary.dir = dir
		bin := filepath.Join(dir, "pi-tui")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			builtBinary.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		builtBinary.path = bin
	})
	if builtBinary.err != nil {
		tb.Fatal(builtBinary.err)
	}
	return builtBinary.path
}
