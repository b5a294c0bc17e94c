// Package waitbound lets a test package whose tests mostly wait (on the
// frames of a terminal UI, on a server's timeouts, on processes they
// start) run more of them at once than go test's default, which is one
// per CPU (-parallel defaults to GOMAXPROCS): on a 2-core machine such a
// package otherwise runs its tests two at a time on a mostly idle
// machine, and as go test runs packages in order, the last one (ui) sets
// the end of the whole run. See docs/adr/0092-the-fast-suites-time.md.
package waitbound

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

// Main runs m with up to n tests at once, unless the command line gave
// -parallel (which wins), n is not above the default, or the race
// detector is on: then the tests are CPU-bound and more of them at once
// would only make each one slower. Call it from TestMain.
func Main(m *testing.M, n int) int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && !raceEnabled && n > runtime.GOMAXPROCS(0) {
		if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
			panic(err) // the testing package's own flag: present in every test binary
		}
	}
	return m.Run()
}
