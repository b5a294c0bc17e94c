package registry

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// piProbe drives the real pi's trust store (its ProjectTrustStore, with
// its proper-lockfile lock) from node.
const piProbe = `const [,, pkg, agentDir, op, ...rest] = process.argv;
const { ProjectTrustStore } = await import(pkg + "/dist/core/trust-manager.js");
const s = new ProjectTrustStore(agentDir);
if (op === "set") { for (let i = 0; i < rest.length; i += 2) s.set(rest[i], rest[i + 1] === "true"); }
if (op === "get") { console.log(JSON.stringify(s.get(rest[0]))); }
`

// TestTrustInteropWithRealPi runs pi's own trust code against pi-tui's:
// the same decisions give the same bytes, each reads the other's, and
// writers of both kinds at once lose nothing. It needs node and an
// installed @earendil-works/pi-coding-agent (0.85 or later) named by
// PI_TUI_PI_PACKAGE (the package's folder).
func TestTrustInteropWithRealPi(t *testing.T) {
	pkg := os.Getenv("PI_TUI_PI_PACKAGE")
	node, err := exec.LookPath("node")
	if pkg == "" || err != nil {
		t.Skip("set PI_TUI_PI_PACKAGE to an installed @earendil-works/pi-coding-agent folder (and have node) to run pi's trust store against pi-tui's")
	}
	if _, err := os.Stat(filepath.Join(pkg, "dist", "core", "trust-manager.js")); err != nil {
		t.Skipf("%s has no dist/core/trust-manager.js (pi before 0.85 has no trust)", pkg)
	}
	probe := filepath.Join(t.TempDir(), "probe.mjs")
	os.WriteFile(probe, []byte(piProbe), 0o644)
	pi := func(agent string, args ...string) string {
		out, err := exec.Command(node, append([]string{probe, pkg, agent}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("pi %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	ctx := context.Background()
	dirs := []string{"/srv/a b", "/srv/a b/c", "/srv/\u00e9t\u00e9", "/srv/\U0001F600", "/srv/\uFB01", "/srv/q\"uote"}

	// Same decisions, same bytes.
	piDir, ourDir := t.TempDir(), t.TempDir()
	var args []string
	for i, d := range dirs {
		args = append(args, d, fmt.Sprint(i%2 == 0))
		if err := NewTrust(ourDir).Set(ctx, d, i%2 == 0); err != nil {
			t.Fatal(err)
		}
	}
	pi(piDir, append([]string{"set"}, args...)...)
	if a, b := readTrust(t, piDir), readTrust(t, ourDir); a != b {
		t.Errorf("pi wrote\n%s\npi-tui wrote\n%s", a, b)
	}

	// Each reads the other's, nearest decision first.
	if got := pi(ourDir, "get", "/srv/a b/c/d"); got != "false" {
		t.Errorf("pi reads pi-tui's child false as %s", got)
	}
	d, err := NewTrust(piDir).Read(ctx)
	if tr, _, ok := d.Nearest("/srv/a b/x"); err != nil || !ok || !tr {
		t.Errorf("pi-tui reads pi's parent true as %v %v %v", tr, ok, err)
	}

	// Writers at once, through pi's lock: every decision that was written
	// survives. (pi itself gives up with ELOCKED after about 200 ms of
	// contention; such a write was never made, so it is not expected.)
	both := t.TempDir()
	var wg sync.WaitGroup
	var mu sync.Mutex
	want := map[string]bool{}
	for w := range 2 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 4 {
				key := fmt.Sprintf("/pi/%d/%d", w, i)
				out, err := exec.Command(node, probe, pkg, both, "set", key, "true").CombinedOutput()
				switch {
				case err == nil:
					mu.Lock()
					want[key] = true
					mu.Unlock()
				case !strings.Contains(string(out), "ELOCKED"):
					t.Errorf("pi set: %v\n%s", err, out)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := range 4 {
				key := fmt.Sprintf("/tui/%d/%d", w, i)
				if err := NewTrust(both).Set(ctx, key, false); err != nil {
					t.Error(err)
				}
				mu.Lock()
				want[key] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	got, err := NewTrust(both).Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for key := range want {
		if got[key] == Undecided {
			t.Errorf("%s was written and then lost", key)
		}
	}
}
