package waitbound

import (
	"flag"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m, 8)) }

// envWant is the -parallel a run of this test binary by the test below
// expects, having given it on the command line.
const envWant = "WAITBOUND_WANT"

// Main raises -parallel to its n, unless the command line gave one.
func TestParallelIsRaisedUnlessGiven(t *testing.T) {
	got := flag.Lookup("test.parallel").Value.String()
	if want := os.Getenv(envWant); want != "" {
		if got != want {
			t.Fatalf("-parallel %s was given, Main left %s", want, got)
		}
		return
	}
	want := "8"
	if raceEnabled || runtime.GOMAXPROCS(0) >= 8 {
		want = strconv.Itoa(runtime.GOMAXPROCS(0))
	}
	if got != want {
		t.Errorf("-parallel is %s under Main(m, 8), want %s", got, want)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestParallelIsRaisedUnlessGiven$", "-test.parallel=3")
	cmd.Env = append(os.Environ(), envWant+"=3")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("with -parallel 3 given: %v\n%s", err, out)
	}
}
