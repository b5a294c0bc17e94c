package sessionimport

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/internal/e2egate"
)

// genClaude writes n Claude Code sessions of entries lines each (a prompt,
// a reply with a tool call, its result, a closing reply, over and over) in
// home's projects folder, each session's text padded to about pad bytes a
// line.
func genClaude(tb testing.TB, home string, n, entries, pad int) {
	tb.Helper()
	dir := filepath.Join(home, ".claude", "projects", "-home-user-src-proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	filler := make([]byte, pad)
	for i := range filler {
		filler[i] = 'a' + byte(i%26)
	}
	for s := range n {
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", s, s)
		f, err := os.Create(filepath.Join(dir, id+".jsonl"))
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriter(f)
		t0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(s) * time.Hour)
		parent := "null"
		for e := range entries {
			uuid := fmt.Sprintf("%s-%d", id, e)
			ts := t0.Add(time.Duration(e) * time.Second).Format(time.RFC3339Nano)
			head := fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"cwd":"/home/user/src/proj","sessionId":"%s","version":"2.0.0","uuid":"%s","timestamp":"%s",`, parent, id, uuid, ts)
			var body string
			switch e % 4 {
			case 0:
				body = fmt.Sprintf(`"type":"user","message":{"role":"user","content":"question %d %s"}}`, e, filler)
			case 1:
				body = fmt.Sprintf(`"type":"assistant","message":{"id":"msg_%d","role":"assistant","model":"claude-sonnet-4","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"echo %d"}}],"usage":{"input_tokens":5,"output_tokens":5}}}`, e, e, e)
			case 2:
				body = fmt.Sprintf(`"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"output %s"}]}}`, e-1, filler)
			case 3:
				body = fmt.Sprintf(`"type":"assistant","message":{"id":"msg_%d","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"answer %s"}]}}`, e, filler)
			}
			w.WriteString(head + body + "\n")
			parent = `"` + uuid + `"`
		}
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		f.Close()
	}
}

func benchRig(tb testing.TB, n int) (Locations, Project) {
	home := tb.TempDir()
	genClaude(tb, home, n, 200, 200)
	loc := DefaultLocations(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	return loc, Project{ID: "p", Name: "proj", Root: projRoot, Dir: pisession.SessionsDir(tb.TempDir(), projRoot)}
}

// BenchmarkImport1000 imports 1,000 sessions of 200 entries each into an
// empty session folder; it reports the largest heap seen.
func BenchmarkImport1000(b *testing.B) {
	loc, p := benchRig(b, 1000)
	var peak uint64
	for b.Loop() {
		p.Dir = pisession.SessionsDir(b.TempDir(), projRoot)
		peak = max(peak, peakHeap(func() {
			res, err := Import(context.Background(), loc, Options{Sources: []Source{Claude}, Projects: []Project{p}})
			if err != nil || len(res.Sessions) != 1000 {
				b.Fatalf("imported %d sessions: %v %v", len(res.Sessions), err, res.Problems)
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// BenchmarkReimport1000 imports the same 1,000 sessions again: nothing is
// read but their records, and nothing written.
func BenchmarkReimport1000(b *testing.B) {
	loc, p := benchRig(b, 1000)
	opts := Options{Sources: []Source{Claude}, Projects: []Project{p}}
	if _, err := Import(context.Background(), loc, opts); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := Import(context.Background(), loc, opts)
		if err != nil || res.Unchanged != 1000 || len(res.Sessions) != 0 {
			b.Fatalf("re-import: %d unchanged, %d written, %v", res.Unchanged, len(res.Sessions), err)
		}
	}
}

func heapNow() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// peakHeap runs fn while sampling the live heap every millisecond, and
// returns the most seen above the heap before it.
func peakHeap(fn func()) uint64 {
	base := heapNow()
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(stop)
	peak := <-done
	if peak < base {
		return 0
	}
	return peak - base
}

// TestMemoryFollowsTheLargestSession imports 40 and then 400 sessions of
// the same size: the heap while importing 400 is not ten times the heap
// while importing 40, as it would be if sessions were held together.
func TestMemoryFollowsTheLargestSession(t *testing.T) {
	e2egate.Require(t, "writes 440 sessions")
	peakOf := func(n int) uint64 {
		home := t.TempDir()
		genClaude(t, home, n, 200, 2000) // about 400 KB a session
		loc := DefaultLocations(func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		})
		p := Project{ID: "p", Root: projRoot, Dir: pisession.SessionsDir(t.TempDir(), projRoot)}
		return peakHeap(func() {
			if _, err := Import(context.Background(), loc, Options{Sources: []Source{Claude}, Projects: []Project{p}}); err != nil {
				t.Error(err)
			}
		})
	}
	small, large := peakOf(40), peakOf(400)
	t.Logf("heap above the start: %.1f MB importing 40 sessions, %.1f MB importing 400", float64(small)/(1<<20), float64(large)/(1<<20))
	if large > 3*small {
		t.Errorf("importing 400 sessions took %.1f MB, importing 40 took %.1f MB: memory grows with the number of sessions", float64(large)/(1<<20), float64(small)/(1<<20))
	}
}
