package piedit

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/e2egate"
)

// editCases are edits of one file, each with what pi 1.6's edit makes
// of it: the new text (LF line ends) or the error it gives.
var editCases = []struct {
	name, content string
	edits         []Edit
	want, err     string
}{
	{name: "two disjoint edits, matched in the original",
		content: "a := 1\nb := 2\nc := 3\n", edits: []Edit{{"c := 3", "c := 30"}, {"a := 1", "a := 10\nb := 2"}},
		want: "a := 10\nb := 2\nb := 2\nc := 30\n"},
	{name: "the second edit's text appears only after the first is applied",
		content: "one\ntwo\n", edits: []Edit{{"one", "three"}, {"three", "four"}},
		err: "Could not find edits[1] in f.go. The oldText must match exactly including all whitespace and newlines."},
	{name: "one edit not found",
		content: "x\n", edits: []Edit{{"y", "z"}},
		err: "Could not find the exact text in f.go. The old text must match exactly including all whitespace and newlines."},
	{name: "the first of two edits not found",
		content: "ab\nab\n", edits: []Edit{{"q", "q"}, {"ab", "cd"}},
		err: "Could not find edits[0] in f.go. The oldText must match exactly including all whitespace and newlines."},
	{name: "duplicate",
		content: "ab\nab\nq\n", edits: []Edit{{"q", "r"}, {"ab", "cd"}},
		err: "Found 2 occurrences of edits[1] in f.go. Each oldText must be unique. Please provide more context to make it unique."},
	{name: "overlap",
		content: "hello world\n", edits: []Edit{{"lo wor", "X"}, {"hello", "Y"}},
		err: "edits[1] and edits[0] overlap in f.go. Merge them into one edit or target disjoint regions."},
	{name: "empty",
		content: "x\n", edits: []Edit{{"x", "y"}, {"", "z"}},
		err: "edits[1].oldText must not be empty in f.go."},
	{name: "no change",
		content: "x\n", edits: []Edit{{"x", "x"}},
		err: "No changes made to f.go. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."},
	{name: "CRLF file, LF edit, BOM kept out",
		content: "\uFEFFfirst\r\nsecond\r\n", edits: []Edit{{"first\nsecond", "1st\n2nd"}},
		want: "1st\n2nd\n"},
	{name: "fuzzy: curly quotes and trailing spaces widen to whole lines",
		content: "say(\u201chi\u201d)   \nkeep \u2014 this\u00a0 \nlast\n", edits: []Edit{{`say("hi")`, `say("bye")`}, {"last", "final"}},
		want: "say(\"bye\")\nkeep \u2014 this\u00a0 \nfinal\n"},
}

// Apply gives pi's result or pi's error for each case.
func TestApplyPiEditsAsPi(t *testing.T) {
	for _, c := range editCases {
		got, err := Apply(c.content, c.edits, "f.go")
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && got.After != c.want:
			t.Errorf("%s: after\n%q\nwant\n%q", c.name, got.After, c.want)
		}
	}
}

// pi's edit input as pi prepares it: edits as a string or one object, and
// the legacy pair added.
func TestPiEditInput(t *testing.T) {
	for in, want := range map[string]int{
		`{"path":"a","edits":[{"oldText":"x","newText":"y"},{"oldText":"p","newText":"q"}]}`: 2,
		`{"path":"a","edits":"[{\"oldText\":\"x\",\"newText\":\"y\"}]"}`:                     1,
		`{"path":"a","edits":{"oldText":"x","newText":"y"}}`:                                 1,
		`{"path":"a","oldText":"x","newText":"y"}`:                                           1,
		`{"path":"a","edits":[{"oldText":"x","newText":"y"}],"oldText":"p","newText":"q"}`:   2,
		`{"path":"a","edits":[]}`: 0,
	} {
		path, edits, err := Input(json.RawMessage(in))
		if len(edits) != want || path != "a" || (want == 0) != (err != nil) {
			t.Errorf("%s: %q %v %v", in, path, edits, err)
		}
	}
}

// The same cases through pi's own code (its dist/core/tools/edit-diff.js,
// beside the pi PI_TUI_PI runs): pi-tui's port gives what pi gives.
func TestApplyPiEditsMatchesPisOwnCode(t *testing.T) {
	e2egate.Require(t, "runs pi's own code with node")
	pi := os.Getenv("PI_TUI_PI")
	if pi == "" {
		t.Skip("set PI_TUI_PI to an installed pi 1.6 (a wrapper beside its node_modules) to compare with pi's own edit code")
	}
	pkg := filepath.Join(filepath.Dir(pi), "node_modules", "@earendil-works", "pi-coding-agent", "dist", "core", "tools", "edit-diff.js")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(pkg); serr != nil || err != nil {
		t.Skipf("no node, or no %s beside PI_TUI_PI", pkg)
	}
	const probe = `import { applyEditsToNormalizedContent, normalizeToLF } from %q;
let out = [];
for (const c of JSON.parse(process.argv[2])) {
  const text = c.content.startsWith("\uFEFF") ? c.content.slice(1) : c.content;
  try { out.push({ after: applyEditsToNormalizedContent(normalizeToLF(text), c.edits, "f.go").newContent }); }
  catch (e) { out.push({ err: e.message }); }
}
console.log(JSON.stringify(out));`
	script := filepath.Join(t.TempDir(), "probe.mjs")
	os.WriteFile(script, []byte(strings.Replace(probe, "%q", `"`+pkg+`"`, 1)), 0o644)
	type in struct {
		Content string `json:"content"`
		Edits   []Edit `json:"edits"`
	}
	var ins []in
	for _, c := range editCases {
		ins = append(ins, in{c.content, c.edits})
	}
	arg, _ := json.Marshal(ins)
	out, err := exec.Command(node, script, string(arg)).CombinedOutput()
	if err != nil {
		t.Fatalf("pi's code: %v\n%s", err, out)
	}
	var got []struct{ After, Err string }
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(editCases) {
		t.Fatalf("pi's code said %s", out)
	}
	for i, c := range editCases {
		ours, oerr := Apply(c.content, c.edits, "f.go")
		switch {
		case got[i].Err != "" && (oerr == nil || oerr.Error() != got[i].Err):
			t.Errorf("%s: pi says %q, pi-tui %v", c.name, got[i].Err, oerr)
		case got[i].Err == "" && (oerr != nil || ours.After != got[i].After):
			t.Errorf("%s: pi makes %q, pi-tui %q (%v)", c.name, got[i].After, ours.After, oerr)
		}
	}
}
