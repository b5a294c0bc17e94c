package runtimes

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// Measures of the real pi 1.x as the engine (PI_TUI_PI; skipped without
// it): how long a freshly opened session's first prompt waits with and
// without Prewarm, and what a live pi costs in memory, alone and with the
// maxPiRuntimes cap reached.

// realPiRig is a rig whose manager runs the real pi against its fake
// model playing script. pi inherits the process's environment: its HOME
// and the model's key are set there.
func realPiRig(tb testing.TB, script fakemodel.Script) *rig {
	tb.Helper()
	argv, skip := realpi.Command16()
	if argv == nil {
		tb.Skip(skip)
	}
	tb.Setenv("FAKE_API_KEY", "test-key")
	tb.Setenv("HOME", tb.TempDir())
	return newRigOpts(tb, script, func(o *Options) {
		env := o.Env
		o.Env = func(k string) string {
			if k == "PI_TUI_PI" {
				return argv[0]
			}
			return env(k)
		}
	})
}

// finished is the benchmarks' model: it answers every prompt at once.
func finished(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "Finished."} }

// newSession opens a fresh session in the rig's project.
func (r *rig) newSession(tb testing.TB) string {
	tb.Helper()
	first, err := r.m.Sessions().Open(context.Background(), r.sid)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := r.m.sessions.Create(context.Background(), first.ProjectID(), "")
	if err != nil {
		tb.Fatal(err)
	}
	return s.ID()
}

// startedAfter runs the prompt with the model spec and returns how long
// after the call the session's AgentStarted was published.
func (r *rig) startedAfter(tb testing.TB, sid, spec string) time.Duration {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := r.h.Events.Subscribe(ctx, events.Agent, events.Verbatim)
	started := make(chan time.Time, 1)
	go func() {
		for {
			batch, ok := sub.Next()
			if !ok {
				return
			}
			for _, e := range batch {
				if a, ok := e.(events.AgentStarted); ok && a.SessionID == sid {
					started <- time.Now()
					return
				}
			}
		}
	}()
	t0 := time.Now()
	if _, err := r.m.Prompt(context.Background(), sid, spec, "hello"); err != nil {
		tb.Fatal(err)
	}
	select {
	case at := <-started:
		return at.Sub(t0)
	case <-time.After(time.Minute):
		tb.Fatal("no AgentStarted within a minute")
	}
	return 0
}

// A freshly opened session's first prompt: the time from the Prompt call
// to AgentStarted, with pi launched by the prompt (cold) and with the
// launch done by Prewarm when the session view opened (prewarmed). Each
// iteration's runtime is retired outside the timing.
func BenchmarkRealPiFirstPrompt(b *testing.B) {
	for _, prewarm := range []bool{false, true} {
		name := "cold"
		if prewarm {
			name = "prewarmed"
		}
		b.Run(name, func(b *testing.B) {
			r := realPiRig(b, finished)
			var total time.Duration
			n := 0
			for b.Loop() {
				b.StopTimer()
				sid := r.newSession(b)
				if prewarm {
					if err := r.m.Prewarm(context.Background(), sid); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				total += r.startedAfter(b, sid, "")
				n++
				b.StopTimer()
				r.m.Retire(sid, "bench")
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(n), "ms-to-agent-start")
		})
	}
}

// vmRSS is a process's resident set in KiB, from /proc.
func vmRSS(tb testing.TB, pid int) int {
	tb.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Skipf("no /proc status for pi (%v)", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				tb.Fatalf("VmRSS %q: %v", v, err)
			}
			return kb
		}
	}
	tb.Fatal("no VmRSS in /proc status")
	return 0
}

// The resident memory of live, idle pi runtimes, each after one prompt:
// one alone, and the sum with the cap (maxPiRuntimes, 4 by default)
// reached.
func BenchmarkRealPiRuntimeRSS(b *testing.B) {
	r := realPiRig(b, finished)
	ids := []string{r.sid}
	for len(ids) < 4 {
		ids = append(ids, r.newSession(b))
	}
	for b.Loop() {
		var one, sum int
		for i, sid := range ids {
			if _, err := r.m.Prompt(context.Background(), sid, "", "hello"); err != nil {
				b.Fatal(err)
			}
			r.m.mu.Lock()
			rt := r.m.runtimes[sid]
			r.m.mu.Unlock()
			if rt == nil || rt.pi == nil || rt.busy() {
				b.Fatalf("session %d has no idle pi runtime", i)
			}
			kb := vmRSS(b, pidOf(rt.pi))
			if i == 0 {
				one = kb
			}
			sum += kb
		}
		live := 0
		r.m.mu.Lock()
		for _, rt := range r.m.runtimes {
			if rt.pi != nil && !rt.pi.Dead() {
				live++
			}
		}
		r.m.mu.Unlock()
		if live != 4 {
			b.Fatalf("%d live pi runtimes, want the cap of 4", live)
		}
		b.ReportMetric(float64(one)/1024, "MiB-one-idle")
		b.ReportMetric(float64(sum)/1024, "MiB-cap4-sum")
	}
}

// The next prompt after a change of thinking level: the time from the
// Prompt call to AgentStarted when each prompt asks for another level
// than the one before (low, high, low, …) on one session. pi takes the
// level in place (ADR 0067); before, each such prompt retired pi and
// started node again.
func BenchmarkRealPiPromptAfterThinkingChange(b *testing.B) {
	r := realPiRig(b, finished)
	if err := os.WriteFile(filepath.Join(r.h.Places.AgentDir, "models.json"), []byte(tunedModels(r.fake.URL)), 0o644); err != nil {
		b.Fatal(err)
	}
	if _, err := r.m.Prompt(context.Background(), r.sid, "fake/m1:low", "hello"); err != nil {
		b.Fatal(err)
	}
	levels := []string{"high", "low"}
	var total time.Duration
	n := 0
	for b.Loop() {
		total += r.startedAfter(b, r.sid, "fake/m1:"+levels[n%2])
		n++
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(n), "ms-to-agent-start")
}
