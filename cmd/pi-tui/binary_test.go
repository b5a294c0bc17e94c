package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// programName is the name under which this test binary is pi-tui itself:
// TestMain runs main when started through a link of that name.
const programName = "pi-tui"

// builtBinary is the pi-tui program the tests that run the real process
// share: made once per test run of this package, on first need, and
// removed by TestMain.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// builtForBench is the binary go build makes, for benchmarks only (see
// buildBinary).
var builtForBench struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == programName {
		main() // exits
	}
	code := m.Run()
	for _, dir := range []string{builtBinary.dir, builtForBench.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// buildBinary returns the path of the shared pi-tui program.
//
// For tests it is this test binary, linked as "pi-tui" into a temp dir:
// it links everything the command links and TestMain runs main under
// that name, so the tests run the real process without the seconds a
// go build (a link of the whole program) costs every run of the
// package. Benchmarks, which time the process, get the program go build
// makes, without the test code.
func buildBinary(tb testing.TB) string {
	tb.Helper()
	if _, ok := tb.(*testing.B); ok {
		return goBuild(tb)
	}
	builtBinary.once.Do(func() {
		self, err := os.Executable()
		if err != nil {
			builtBinary.err = err
			return
		}
		dir, err := os.MkdirTemp("", "pi-tui-bin-")
		if err != nil {
			builtBinary.err = err
			return
		}
		builtBinary.dir = dir
		bin := filepath.Join(dir, programName)
		if err := os.Symlink(self, bin); err != nil {
			builtBinary.err = err
			return
		}
		builtBinary.path = bin
	})
	if builtBinary.err != nil {
		tb.Fatal(builtBinary.err)
	}
	return builtBinary.path
}

// goBuild returns the path of the pi-tui binary go build makes.
func goBuild(tb testing.TB) string {
	tb.Helper()
	builtForBench.once.Do(func() {
		dir, err := os.MkdirTemp("", "pi-tui-bin-")
		if err != nil {
			builtForBench.err = err
			return
		}
		builtForBench.dir = dir
		bin := filepath.Join(dir, programName)
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			builtForBench.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		builtForBench.path = bin
	})
	if builtForBench.err != nil {
		tb.Fatal(builtForBench.err)
	}
	return builtForBench.path
}
