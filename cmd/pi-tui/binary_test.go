package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// programName is the name under which this test binary is pi-tui itself:
// TestMain runs main when started under that name.
const programName = "pi-tui"

// sharedBinary is a pi-tui program the tests share: made once per test
// run of this package, on first need, in a temp dir TestMain removes.
type sharedBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// get makes the program (create puts it at bin) the first time, and
// returns its path.
func (b *sharedBinary) get(tb testing.TB, create func(bin string) error) string {
	tb.Helper()
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "pi-tui-bin-"); b.err != nil {
			return
		}
		bin := filepath.Join(b.dir, programName)
		if b.err = create(bin); b.err == nil {
			b.path = bin
		}
	})
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.path
}

// testBinary is this test binary linked as pi-tui; builtBinary is the
// one go build makes, for benchmarks.
var testBinary, builtBinary sharedBinary

// TestMain runs main when this test binary is started as pi-tui (by the
// scripts, see TestScripts, and through testBinary's link); otherwise it
// runs the tests and then removes the programs they shared.
func TestMain(m *testing.M) {
	testscript.Main(cleanAfter{m}, map[string]func(){programName: main})
}

// cleanAfter runs the tests, then removes the shared programs' temp dirs.
type cleanAfter struct{ m *testing.M }

func (c cleanAfter) Run() int {
	code := c.m.Run()
	for _, b := range []*sharedBinary{&testBinary, &builtBinary} {
		if b.dir != "" {
			os.RemoveAll(b.dir)
		}
	}
	if builtFakePi.dir != "" {
		os.RemoveAll(builtFakePi.dir)
	}
	return code
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
		return builtBinary.get(tb, func(bin string) error {
			cmd := exec.Command("go", "build", "-o", bin, ".")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("go build: %v\n%s", err, out)
			}
			return nil
		})
	}
	return testBinary.get(tb, func(bin string) error {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		return os.Symlink(self, bin)
	})
}
