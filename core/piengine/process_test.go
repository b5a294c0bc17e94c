package piengine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func readLog(t *testing.T, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(strings.ReplaceAll(string(b), "stdin closed", "stdin-closed"))
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Close closes stdin first; a pi that ignores it gets SIGTERM, and one
// that ignores that too SIGKILL; every time the group is gone after.
func TestCloseSequence(t *testing.T) {
	for _, c := range []struct {
		name     string
		env      []string
		wantTerm bool
		wantExit bool
	}{
		{"leaves on EOF", nil, false, true},
		{"leaves on SIGTERM", []string{"FAKEPI_IGNORE_EOF=1"}, true, true},
		{"killed", []string{"FAKEPI_IGNORE_EOF=1", "FAKEPI_IGNORE_TERM=1"}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "log")
			r := launch(t, nil, append(c.env, "FAKEPI_LOG="+log), func(cfg *Config) { cfg.TermGrace, cfg.KillGrace = 100*time.Millisecond, 100*time.Millisecond })
			if c.wantExit == false {
				// the fake pi must have installed its handler before TERM comes
				if _, err := r.e.Call(context.Background(), "get_state", nil); err != nil {
					t.Fatal(err)
				}
			}
			pid := r.e.PID()
			if err := r.e.Close(); err != nil {
				t.Fatal(err)
			}
			got := readLog(t, log)
			if !has(got, "stdin-closed") || has(got, "SIGTERM") != c.wantTerm || has(got, "exit") != c.wantExit {
				t.Errorf("log = %v", got)
			}
			if groupAlive(pid) {
				t.Error("pi's process group outlived Close")
			}
			if !r.e.Dead() {
				t.Error("a closed engine says it is alive")
			}
		})
	}
}

// An engine dropped without Close does not leave pi running: its
// cleanup kills the group once the engine is collected.
func TestDroppedEngineKillsPi(t *testing.T) {
	var dropped int
	t.Run("drop", func(t *testing.T) {
		e, err := Launch(context.Background(), Config{Pi: Pi{Path: fakeBin, Version: "1.6.0"}, Root: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		dropped = e.PID()
	})
	deadline := time.Now().Add(20 * time.Second)
	for alive(dropped) && !zombie(dropped) {
		if time.Now().After(deadline) {
			t.Fatal("pi outlived its dropped engine")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// zombie: exited, not yet reaped by its (new) parent.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}

const helperEnv = "PIENGINE_TEST_HELPER"

// parentDeathHelper is the test binary run as pi-tui: it launches the
// fake pi, prints its pid and waits to be killed.
func parentDeathHelper() {
	e, err := Launch(context.Background(), Config{Pi: Pi{Path: os.Getenv("PIENGINE_FAKEPI"), Version: "1.6.0"}, Root: os.TempDir()})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(e.PID())
	runtime.KeepAlive(e)
	select {}
}

// pi never outlives pi-tui: a pi-tui killed with SIGKILL takes pi with
// it (the parent-death signal), on Linux.
func TestPiDiesWithPiTui(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "PIENGINE_FAKEPI="+fakeBin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("helper said %q", line)
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for alive(pid) && !zombie(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatal("pi outlived pi-tui")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
