package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs the command line's contract (exit statuses, --json
// shapes, usage and error text, help) as scripts a reader can follow:
// testdata/script/*.txtar, one subject a file. Each script runs the real
// pi-tui process (this test binary under that name, see TestMain) in a
// home of its own: $HOME is $WORK/home, the data dir $HOME/data, and PATH
// holds pi-tui and git alone, so the user's pi is never found.
//
// Besides testscript's commands a script has:
//
//	fails N cmd args...   cmd exits with status N and says why on one line of stderr
//	json FILE PATH WANT   the JSON value at PATH in FILE (stdout, stderr or a file) is WANT
//	json FILE PATH        prints that value for stdout to check (strings as they are)
//	jsonkeys FILE PATH K… the object at PATH has exactly the keys K…
//	cpenv SRC DST         copies SRC to DST with $VARIABLES expanded, as cmpenv reads
//
// PATH is dot-separated object keys and array indexes ("0.name"; "." is
// the whole value); a PATH ending in "#" is the length of the array or
// object before it ("#" alone: the whole value's). WANT is JSON (true, 2,
// null, "x", [1]) or else a plain string, compared as a JSON string.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup:               scriptSetup,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"fails":    scriptFails,
			"json":     scriptJSON,
			"jsonkeys": scriptJSONKeys,
			"cpenv":    scriptCpenv,
		},
	})
}

// scriptSetup gives each script its own home and data dir, and a PATH of
// one folder holding pi-tui (testscript.Main put it on this process's
// PATH) and git, if there is one: never the user's pi.
func scriptSetup(e *testscript.Env) error {
	home := filepath.Join(e.WorkDir, "home")
	bin := filepath.Join(e.WorkDir, ".bin")
	for _, dir := range []string{home, bin} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	for _, prog := range []string{programName, "git"} {
		path, err := exec.LookPath(prog)
		if err != nil && prog == programName {
			return err
		}
		if err == nil {
			if err := os.Symlink(path, filepath.Join(bin, prog)); err != nil {
				return err
			}
		}
	}
	e.Setenv("HOME", home)
	e.Setenv("PI_TUI_DATA_DIR", filepath.Join(home, "data"))
	e.Setenv("PATH", bin)
	return nil
}

// scriptFails is `fails N cmd args...`: every pi-tui error is one line on
// stderr and an exit status a script can branch on (2 usage, 1 failure).
func scriptFails(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! fails")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: fails STATUS command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil || want == 0 {
		ts.Fatalf("fails: %q is not a failing exit status", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	var exit *exec.ExitError
	switch {
	case err == nil:
		ts.Fatalf("%s succeeded, want exit status %d", args[1], want)
	case !errors.As(err, &exit):
		ts.Fatalf("%s: %v", args[1], err)
	case exit.ExitCode() != want:
		ts.Fatalf("%s: exit status %d, want %d", args[1], exit.ExitCode(), want)
	}
	if stderr := ts.ReadFile("stderr"); strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		ts.Fatalf("%s: stderr is not one line: %q", args[1], stderr)
	}
}

// scriptJSON is `json FILE PATH [WANT]`.
func scriptJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 && len(args) != 3 {
		ts.Fatalf("usage: json FILE PATH [WANT]")
	}
	got := jsonAt(ts, args[0], args[1])
	if len(args) == 2 {
		if neg {
			ts.Fatalf("unsupported: ! json FILE PATH")
		}
		fmt.Fprint(ts.Stdout(), printedValue(got))
		return
	}
	var want any
	if json.Unmarshal([]byte(args[2]), &want) != nil {
		want = args[2]
	}
	gotText, _ := json.Marshal(got)
	wantText, _ := json.Marshal(want)
	if same := string(gotText) == string(wantText); same == neg {
		ts.Fatalf("%s at %s is %s; want %s%s", args[0], args[1], gotText, map[bool]string{true: "not "}[neg], wantText)
	}
}

// printedValue is v as `json FILE PATH` prints it: a string as it is, a list
// of strings one a line (warnings, say), anything else as indented JSON.
func printedValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if list, ok := v.([]any); ok {
		var b strings.Builder
		for _, x := range list {
			s, ok := x.(string)
			if !ok {
				b.Reset()
				break
			}
			b.WriteString(s + "\n")
		}
		if b.Len() > 0 {
			return b.String()
		}
	}
	text, _ := json.MarshalIndent(v, "", "  ")
	return string(text) + "\n"
}

// scriptJSONKeys is `jsonkeys FILE PATH KEY...`: a --json shape is its
// set of keys, none missing and none added unnoticed.
func scriptJSONKeys(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: jsonkeys FILE PATH KEY...")
	}
	obj, ok := jsonAt(ts, args[0], args[1]).(map[string]any)
	if !ok {
		ts.Fatalf("%s at %s is not an object", args[0], args[1])
	}
	var keys []string
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := slices.Sorted(slices.Values(args[2:]))
	if !slices.Equal(keys, want) {
		ts.Fatalf("%s at %s has the keys %s; want %s", args[0], args[1], strings.Join(keys, " "), strings.Join(want, " "))
	}
}

// scriptCpenv is `cpenv SRC DST`: a file that must hold this script's
// paths (a trust.json naming a folder, say) is written from one in the
// archive, whose names only are expanded.
func scriptCpenv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cpenv SRC DST")
	}
	text := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, []byte(text), 0o644))
}

// jsonAt decodes file and returns the value at path (see TestScripts).
func jsonAt(ts *testscript.TestScript, file, path string) any {
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile(file)), &v); err != nil {
		ts.Fatalf("%s is not JSON: %v", file, err)
	}
	if path == "." {
		return v
	}
	for _, step := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			if step == "#" {
				return float64(len(x))
			}
			next, ok := x[step]
			if !ok {
				ts.Fatalf("%s has no %q at %s", file, step, path)
			}
			v = next
		case []any:
			if step == "#" {
				return float64(len(x))
			}
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(x) {
				ts.Fatalf("%s has no element %s at %s (length %d)", file, step, path, len(x))
			}
			v = x[i]
		default:
			ts.Fatalf("%s: %s goes inside %v, which is neither object nor array", file, path, v)
		}
	}
	return v
}
