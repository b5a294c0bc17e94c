package sshserver

import (
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/pi-tui/pi-tui/internal/e2egate"
)

// TestTwentySessions runs 20 sessions at once over one host, each
// navigating the list and the tabs and editing a project's memory, and
// reports key-to-frame latency (from writing a key to
// seeing its effect in the output) and heap per additional session. The
// figures are logged, not asserted: wall-clock numbers depend on the
// machine (targets: ≤ 20 ms per key, ≤ 10 MB per session).
func TestTwentySessions(t *testing.T) {
	e2egate.Require(t, "a load test of 20 sessions")
	const sessions, rounds = 20, 3
	w := newWorld(t)
	for i := range sessions {
		w.addProject(fmt.Sprintf("p%02d", i))
	}
	w.start(nil)
	// Warm up: the first session pays for one-time initialisation.
	warm := w.openTerm(100, 30, "xterm-256color", nil)
	warm.waitFor("[1 Projects]", "Projects (20)")

	before := heap()
	terms := make([]*term, sessions)
	for i := range terms {
		terms[i] = w.openTerm(100, 30, "xterm-256color", nil)
	}
	for _, tm := range terms {
		tm.waitFor("[1 Projects]", "Projects (20)")
	}
	after := heap()
	perSession := (float64(after) - float64(before)) / sessions

	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i, tm := range terms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			step := func(keys string, want ...string) (string, bool) {
				start := time.Now()
				tm.send(keys)
				got, err := tm.waitAny(want...)
				if err != nil {
					errs <- fmt.Errorf("session %d, key %q: %v", i, keys, err)
					return "", false
				}
				mine = append(mine, time.Since(start))
				return got, true
			}
			// Each session edits its own project: sort by name, walk down to it.
			name := fmt.Sprintf("p%02d", i)
			if _, ok := step("s", "sort: name"); !ok {
				return
			}
			at := tm.selected()
			for at != i {
				key, next := "j", at+1
				if at > i {
					key, next = "k", at-1
				}
				if _, ok := step(key, fmt.Sprintf("› p%02d", next)); !ok {
					return
				}
				at = next
			}
			for r := range rounds {
				text := fmt.Sprintf("note %s-%d", name, r)
				for _, s := range [][]string{
					{"2", "[2 Session]"}, {"3", "[3 Settings]"}, {"1", "[1 Projects]"},
					{keyEnter, "Edit memory"}, {"m", "a add · enter edit"}, {"a", "tab title/content"}, {"\t", "› Content"},
					{text, text}, {keyEsc, "a add · enter edit"},
					{keyCtrlS, fmt.Sprintf("saved memory of %s: %s", name, entries(r+1))}, {keyEsc, "enter menu · o open"},
				} {
					if _, ok := step(s[0], s[1:]...); !ok {
						return
					}
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	t.Logf("%d sessions, %d keys: key-to-frame latency p50 %v, p99 %v, max %v",
		sessions, len(lat), pct(0.50).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), lat[len(lat)-1].Round(10*time.Microsecond))
	t.Logf("heap+stacks per additional session: %.2f MB (in-process client included; %d → %d bytes)",
		perSession/(1<<20), before, after)
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

var selectedRow = regexp.MustCompile(`› p(\d\d) `)

// selected is the number of the selected project in the output since the
// mark (-1 when none is drawn).
func (tm *term) selected() int {
	tm.mu.Lock()
	text := ansi.Strip(string(tm.out[tm.mark:]))
	tm.mu.Unlock()
	m := selectedRow.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return -1
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

// entries counts memory entries as the editor's notice does.
func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}
