package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// initLine is one line of GODEBUG=inittrace=1: a package's initialisation
// and what it allocated.
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs`)

// Every command pays for the package initialisation of everything linked
// in, the terminal UI included, before it does anything. Time is not
// asserted (it depends on the machine); what initialisation allocates is
// the same on every run and tracks it: chroma's lexers and styles, parsed
// at start by upstream, cost each command ~4 MB and ~9 ms, and the
// patched copy parses them on first use; pi-tui's own regular
// expressions and templates are built on first use too (ADR 0092). This
// runs this test binary again, which links what the command links.
func TestPackageInitStaysSmall(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	type pkg struct {
		name  string
		bytes int
	}
	var pkgs []pkg
	total := 0
	for _, line := range strings.Split(string(out), "\n") {
		m := initLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		pkgs = append(pkgs, pkg{m[1], n})
		total += n
	}
	if len(pkgs) < 50 {
		t.Fatalf("inittrace printed %d packages; is GODEBUG honoured?\n%s", len(pkgs), out)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].bytes > pkgs[j].bytes })
	top := ""
	for _, p := range pkgs[:5] {
		top += fmt.Sprintf("\n  %s: %d bytes", p.name, p.bytes)
	}
	for _, p := range pkgs {
		if strings.HasPrefix(p.name, "github.com/alecthomas/chroma/") && p.bytes > 512<<10 {
			t.Errorf("%s allocates %d bytes at initialisation: syntax highlighting is loaded at start again", p.name, p.bytes)
		}
		if strings.HasPrefix(p.name, "github.com/pi-tui/pi-tui/") && p.bytes > 64<<10 {
			t.Errorf("%s allocates %d bytes at initialisation: build what a command may not use on first use (sync.OnceValue)", p.name, p.bytes)
		}
	}
	budget := 3 << 20
	if raceBuild {
		budget *= 2 // the detector's instrumentation allocates too
	}
	if total > budget {
		t.Errorf("package initialisation allocates %d bytes, over the %d budget; the largest:%s", total, budget, top)
	}
	t.Logf("package initialisation allocates %d bytes; the largest:%s", total, top)
}
