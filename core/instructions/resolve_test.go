//go:build unix

package instructions

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
)

func TestOrderAndFirstQualifying(t *testing.T) {
	tr := newTree(t)
	tr.write(filepath.Join(tr.agent, "AGENTS.md"), "global rules")
	tr.write("AGENTS.override.md", " \n\t ")
	tr.write("AGENTS.md", "root rules")
	tr.write("CLAUDE.md", "root claude")
	tr.write("sub/CLAUDE.md", "sub claude")
	tr.write("sub/deep/.claude/CLAUDE.md", "deep dot-claude")
	tr.write("sub/deep/x/y/AGENTS.MD", "upper-case agents")
	tr.write("sub/deep/x/y/z.go", "package z")

	c := tr.target(noModel, "sub/deep/x/y/z.go")
	wantLabels(t, c, "~/.pi/agent/AGENTS.md", "AGENTS.md", "sub/CLAUDE.md", "sub/deep/.claude/CLAUDE.md", "sub/deep/x/y/AGENTS.MD")
	if r := skipReason(c, filepath.Join(tr.root, "AGENTS.override.md")); r != "empty (only white space)" {
		t.Errorf("override skip reason = %q", r)
	}
	if c.Sources[0].Scope != ScopeGlobal || c.Sources[1].Scope != ScopeProject {
		t.Errorf("scopes: %+v", c.Sources)
	}
	if c.Dir != filepath.Join(tr.root, "sub/deep/x/y") || c.Target != filepath.Join(tr.root, "sub/deep/x/y/z.go") {
		t.Errorf("dir %q target %q", c.Dir, c.Target)
	}
	// The rendered text names every source in order and says once that
	// later entries win.
	last := -1
	for _, l := range labels(c) {
		i := strings.Index(c.Text, "\n## "+strconv.Quote(l)+"\n")
		if i <= last {
			t.Fatalf("heading for %s missing or out of order in:\n%s", l, c.Text)
		}
		last = i
	}
	if strings.Count(c.Text, "take precedence") != 1 {
		t.Errorf("precedence sentence should appear once:\n%s", c.Text)
	}
	if !strings.Contains(c.Text, "## \"sub/CLAUDE.md\"\n\n<instruction-file>\nsub claude\n</instruction-file>\n") {
		t.Errorf("content missing:\n%s", c.Text)
	}

	root, err := tr.resolver(noModel).ResolveRoot(context.Background(), tr.root)
	if err != nil {
		t.Fatal(err)
	}
	wantLabels(t, root, "~/.pi/agent/AGENTS.md", "AGENTS.md")
}

func TestProviderFiles(t *testing.T) {
	tr := newTree(t)
	tr.write(filepath.Join(tr.agent, "AGENTS.md"), "global")
	tr.write(filepath.Join(tr.agent, "CLAUDE.md"), "global claude")
	tr.write(filepath.Join(tr.agent, "CODEX.md"), "global codex")
	tr.write("AGENTS.md", "root")
	for _, f := range []string{"CLAUDE.md", "CODEX.md", "GEMINI.md"} {
		tr.write(f, "root "+f)
		tr.write("sub/"+f, "sub "+f)
	}
	tr.write("sub/AGENTS.md", "sub")
	cases := []struct {
		m    Model
		want []string
	}{
		{anthropic, []string{"~/.pi/agent/AGENTS.md", "~/.pi/agent/CLAUDE.md", "AGENTS.md", "CLAUDE.md", "sub/AGENTS.md", "sub/CLAUDE.md"}},
		{openai, []string{"~/.pi/agent/AGENTS.md", "~/.pi/agent/CODEX.md", "AGENTS.md", "CODEX.md", "sub/AGENTS.md", "sub/CODEX.md"}},
		{Model{"azure-openai-responses", "x"}, []string{"~/.pi/agent/AGENTS.md", "~/.pi/agent/CODEX.md", "AGENTS.md", "CODEX.md", "sub/AGENTS.md", "sub/CODEX.md"}},
		{Model{"google-vertex", "gemini-2.5"}, []string{"~/.pi/agent/AGENTS.md", "AGENTS.md", "GEMINI.md", "sub/AGENTS.md", "sub/GEMINI.md"}},
		{Model{"mistral", "large"}, []string{"~/.pi/agent/AGENTS.md", "AGENTS.md", "sub/AGENTS.md"}},
		{Model{"", "claude-x"}, []string{"~/.pi/agent/AGENTS.md", "AGENTS.md", "sub/AGENTS.md"}},
	}
	for _, tc := range cases {
		t.Run(tc.m.Provider, func(t *testing.T) {
			c := tr.target(tc.m, "sub/file.go")
			wantLabels(t, c, tc.want...)
			for _, s := range c.Sources[1:] {
				if strings.HasSuffix(s.Label, "AGENTS.md") != (s.Kind == KindInstructions) {
					t.Errorf("%s has kind %s", s.Label, s.Kind)
				}
			}
		})
	}
}

func TestOverrideBesideClaudeLoadsClaudeForAnthropic(t *testing.T) {
	tr := newTree(t)
	tr.write("AGENTS.override.md", "override")
	tr.write("CLAUDE.md", "claude specific")
	wantLabels(t, tr.target(anthropic, "x.go"), "AGENTS.override.md", "CLAUDE.md")
	wantLabels(t, tr.target(openai, "x.go"), "AGENTS.override.md")
}

func TestClaudeFallbackNotLoadedTwice(t *testing.T) {
	tr := newTree(t)
	tr.write("CLAUDE.md", "only claude")
	c := tr.target(anthropic, "x.go")
	wantLabels(t, c, "CLAUDE.md")
	if c.Sources[0].Kind != KindInstructions || len(c.Skipped) != 0 {
		t.Errorf("sources %+v skipped %+v", c.Sources, c.Skipped)
	}
}

func TestDedupByFileAndContent(t *testing.T) {
	tr := newTree(t)
	tr.write(filepath.Join(tr.agent, "AGENTS.md"), "shared rules\n")
	tr.write(filepath.Join(tr.agent, "GEMINI.md"), "\n  shared rules  \n") // same trimmed content as the global AGENTS.md
	tr.write("AGENTS.md", "root rules")
	tr.symlink("AGENTS.md", "CLAUDE.md")                                     // same file by link
	if err := os.Link(tr.abs("AGENTS.md"), tr.abs("CODEX.md")); err != nil { // same file by hard link
		t.Fatal(err)
	}
	tr.write("sub/GEMINI.md", "root rules") // same content as AGENTS.md in another dir
	tr.write("sub/AGENTS.md", "sub rules")

	c := tr.target(anthropic, "sub/x")
	wantLabels(t, c, "~/.pi/agent/AGENTS.md", "AGENTS.md", "sub/AGENTS.md")
	if r := skipReason(c, tr.abs("CLAUDE.md")); r != `same file as "AGENTS.md"` {
		t.Errorf("CLAUDE.md link: %q", r)
	}
	c = tr.target(openai, "sub/x")
	if r := skipReason(c, tr.abs("CODEX.md")); r != `same file as "AGENTS.md"` {
		t.Errorf("CODEX.md hard link: %q", r)
	}
	c = tr.target(Model{"google", "gemini"}, "sub/x")
	wantLabels(t, c, "~/.pi/agent/AGENTS.md", "AGENTS.md", "sub/AGENTS.md")
	if r := skipReason(c, filepath.Join(tr.agent, "GEMINI.md")); r != `same content as "~/.pi/agent/AGENTS.md"` {
		t.Errorf("global GEMINI.md: %q", r)
	}
	if r := skipReason(c, tr.abs("sub/GEMINI.md")); r != `same content as "AGENTS.md"` {
		t.Errorf("sub/GEMINI.md: %q", r)
	}
}

func TestGuidanceModelsAndProviders(t *testing.T) {
	tr := newTree(t)
	tr.write(filepath.Join(tr.agent, GuidanceFile), `{
		"providers": {"openai": ["OPENAI.md"], "anthropic": ["CLAUDE.md", "EXTRA.md"]},
		"models": {"claude-3-5*": ["C35.md"], "CLAUDE*": ["CALL.md"], "gpt-*mini": [], "*sonnet*": ["NEVER.md"]},
		"otherTool": {"kept": [1, 2, {"x": null}]}
	}`)
	for _, f := range []string{"C35.md", "CALL.md", "OPENAI.md", "CLAUDE.md", "EXTRA.md", "NEVER.md", "CODEX.md"} {
		tr.write(f, "content of "+f)
	}
	cases := []struct {
		m    Model
		want []string
	}{
		{Model{"anthropic", "claude-3-5-sonnet"}, []string{"C35.md"}}, // first match wins over a later one
		{Model{"anthropic", "Claude-Opus-4"}, []string{"CALL.md"}},    // case-insensitive
		{Model{"anthropic", "opus"}, []string{"EXTRA.md"}},            // providers; CLAUDE.md already won as instructions
		{Model{"openai", "GPT-5-MINI"}, []string{}},                   // empty list disables
		{Model{"openai", "gpt-5"}, []string{"OPENAI.md"}},             // '*' needs the literal tail
		{Model{"openai-codex", "codex"}, []string{"CODEX.md"}},        // defaults stay for others
		{Model{"bedrock", "claude-3-5-haiku"}, []string{"C35.md"}},    // models apply to any provider
		{Model{"anthropic", "claude-3.5"}, []string{"CALL.md"}},       // '.' is literal, not a wildcard
		{Model{"anthropic", "x-claude-3-5"}, []string{"EXTRA.md"}},    // anchored
		{Model{"OpenAI", "o3"}, nil},                                  // provider names match case-sensitively, as pi's
		{Model{"Anthropic", "opus"}, nil},                             // not the built-in "anthropic" either
	}
	for _, tc := range cases {
		r := tr.resolver(tc.m)
		if ws := r.Guidance().Warnings(); len(ws) != 0 {
			t.Fatalf("warnings: %q", ws)
		}
		c, err := r.ResolveRoot(context.Background(), tr.root)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, s := range c.Sources {
			if s.Kind == KindProvider {
				got = append(got, s.Label)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%+v: provider files %q, want %q", tc.m, got, tc.want)
		}
	}
	g, _ := LoadGuidance(tr.agent)
	if !g.SubdirectoryContext() {
		t.Error("subdirectory context should default to on")
	}
	g, err := ParseGuidance([]byte(`{"subdirectoryContext": false}`))
	if err != nil || g.SubdirectoryContext() {
		t.Errorf("subdirectoryContext false: %v %v", g, err)
	}
}

func TestInvalidGuidance(t *testing.T) {
	bad := map[string]string{
		"bad json":        `{"providers": {`,
		"not an object":   `["CLAUDE.md"]`,
		"provider string": `{"providers": {"anthropic": "CLAUDE.md"}}`,
		"provider number": `{"providers": {"anthropic": [1]}}`,
		"models list":     `{"models": ["x"]}`,
		"models null":     `{"models": null}`,
		"subdir string":   `{"subdirectoryContext": "false"}`,
		"subdir number":   `{"subdirectoryContext": 0}`,
		"path name":       `{"providers": {"anthropic": ["../CLAUDE.md"]}}`,
		"trailing":        `{} {}`,
		"empty":           ``,
	}
	for name, content := range bad {
		t.Run(name, func(t *testing.T) {
			tr := newTree(t)
			path := tr.write(filepath.Join(tr.agent, GuidanceFile), content)
			tr.write("CLAUDE.md", "claude")
			tr.write("AGENTS.md", "agents")
			g, ws := LoadGuidance(tr.agent)
			if len(ws) != 1 || !strings.Contains(ws[0], path) {
				t.Fatalf("warnings = %q, want one naming %s", ws, path)
			}
			if !g.SubdirectoryContext() || strings.Join(g.FilesFor(anthropic), ",") != "CLAUDE.md" {
				t.Errorf("defaults not applied: %v", g.FilesFor(anthropic))
			}
			c := tr.target(anthropic, "")
			wantLabels(t, c, "AGENTS.md", "CLAUDE.md")
			if len(c.Warnings) != 1 || c.Warnings[0] != ws[0] {
				t.Errorf("chain warnings = %q", c.Warnings)
			}
		})
	}
	t.Run("directory", func(t *testing.T) {
		tr := newTree(t)
		tr.mkdir(filepath.Join(tr.agent, GuidanceFile))
		if _, ws := LoadGuidance(tr.agent); len(ws) != 1 {
			t.Errorf("warnings = %q", ws)
		}
	})
	t.Run("missing", func(t *testing.T) {
		tr := newTree(t)
		if _, ws := LoadGuidance(tr.agent); len(ws) != 0 || ws == nil {
			t.Errorf("warnings = %#v", ws)
		}
	})
}

func TestBudgetFairShares(t *testing.T) {
	tr := newTree(t)
	tr.write(filepath.Join(tr.agent, "AGENTS.md"), strings.Repeat("g", 100))
	big1 := strings.Repeat("root line of rules\n", 1100) // 20,900 bytes
	big2 := strings.Repeat("sub line of rules.\n", 1600) // 30,400 bytes
	tr.write("AGENTS.md", big1)
	tr.write("a/AGENTS.md", big2)
	tr.write("a/b/AGENTS.md", strings.Repeat("s", 500))
	c := tr.target(noModel, "a/b/c.go")
	wantLabels(t, c, "~/.pi/agent/AGENTS.md", "AGENTS.md", "a/AGENTS.md", "a/b/AGENTS.md")
	small1, small2 := source(t, c, "~/.pi/agent/AGENTS.md"), source(t, c, "a/b/AGENTS.md")
	if small1.Truncated || small1.ShownBytes != 100 || small2.Truncated || small2.ShownBytes != 500 {
		t.Errorf("small sources must be whole: %+v %+v", small1, small2)
	}
	share := (32768 - 600) / 2
	total := 0
	for _, l := range []string{"AGENTS.md", "a/AGENTS.md"} {
		s := source(t, c, l)
		if !s.Truncated || s.ShownBytes > share || s.ShownBytes < share*3/4 {
			t.Errorf("%s: shown %d of share %d, truncated %v", l, s.ShownBytes, share, s.Truncated)
		}
		if !strings.HasSuffix(s.Content, ".") && !strings.HasSuffix(s.Content, "rules") {
			t.Errorf("%s: cut not at a line end: %q", l, s.Content[len(s.Content)-20:])
		}
		note := TruncationNote(s)
		if !strings.Contains(c.Text, note) || !strings.Contains(note, l) || strings.Contains(note, "\n") {
			t.Errorf("note %q missing from text", note)
		}
		total += s.ShownBytes
	}
	if c.UsedBytes != total+600 || c.UsedBytes > 32768 {
		t.Errorf("used %d", c.UsedBytes)
	}
	if strings.Count(c.Text, "[Truncated:") != 2 {
		t.Errorf("want exactly two notes")
	}
}

func TestFairSharesUnit(t *testing.T) {
	cases := []struct {
		d      []int
		budget int
		want   []int
	}{
		{[]int{10, 20}, 100, []int{10, 20}},
		{[]int{100, 100}, 100, []int{50, 50}},
		{[]int{10, 1000, 1000}, 100, []int{10, 45, 45}},
		{[]int{1000, 10, 1000, 30}, 101, []int{31, 10, 30, 30}},
		{[]int{}, 100, []int{}},
	}
	for _, tc := range cases {
		got := fairShares(tc.d, tc.budget)
		sum := 0
		for i := range got {
			sum += got[i]
			if got[i] != tc.want[i] {
				t.Errorf("fairShares(%v, %d) = %v, want %v", tc.d, tc.budget, got, tc.want)
				break
			}
		}
		if sum > tc.budget {
			t.Errorf("sum %d over budget", sum)
		}
	}
}

func TestCutOnCodePointBoundary(t *testing.T) {
	tr := newTree(t)
	tr.write("AGENTS.md", strings.Repeat("日本語のルール", 3000)) // no newlines, 3-byte runes
	r := New(Options{BudgetBytes: 1000})
	c, err := r.ResolveRoot(context.Background(), tr.root)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Sources[0]
	if !utf8.ValidString(s.Content) || s.ShownBytes > 1000 || s.ShownBytes < 997 || !s.Truncated {
		t.Errorf("shown %d valid %v", s.ShownBytes, utf8.ValidString(s.Content))
	}
	if !strings.Contains(c.Text, "[Truncated: \"AGENTS.md\" is shown only in part (999 bytes shown; the file has 63000 bytes); read the file for the rest.]") {
		t.Errorf("note missing:\n%s", c.Text[len(c.Text)-200:])
	}
	if got := cutText("abcdefgh\nijklmnop", 10); got != "abcdefgh" {
		t.Errorf("cut prefers the last line end in the last quarter: %q", got)
	}
	if got := cutText("abcdefgh\nij", 8); got != "abcdefgh" {
		t.Errorf("cut = %q", got)
	}
	if got := cutText("a\nbcdefghijkl", 10); got != "a\nbcdefghi" {
		t.Errorf("an early line end is not worth losing most of the share: %q", got)
	}
}

func TestNormalisation(t *testing.T) {
	tr := newTree(t)
	raw := "\xef\xbb\xbf\r\n  first\r\nsecond \xff\xfe bad\r\nlone\rcr\r\n\r\n"
	tr.write("AGENTS.md", raw)
	c := tr.target(noModel, "")
	s := c.Sources[0]
	want := "first\nsecond \uFFFD\uFFFD bad\nlone\rcr" // \xff and \xfe can never lead: one U+FFFD each, as pi
	if s.Content != want || s.ShownBytes != len(want) || s.Truncated {
		t.Errorf("content %q shown %d", s.Content, s.ShownBytes)
	}
	if s.Bytes != len(raw) {
		t.Errorf("bytes = %d, want the size on disk", s.Bytes)
	}
}

func TestIrregularCandidatesAreNeverOpened(t *testing.T) {
	tr := newTree(t)
	if err := syscall.Mkfifo(tr.abs("AGENTS.override.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Unix socket paths are limited to ~108 bytes; bind through a short
	// relative path from the project directory.
	wd, _ := os.Getwd()
	if err := os.Chdir(tr.root); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", "AGENTS.md")
	os.Chdir(wd)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tr.symlink("/dev/null", "AGENTS.MD")
	tr.mkdir("CLAUDE.md")
	tr.symlink("missing.md", "CLAUDE.MD")
	tr.symlink("loop2", ".claude/loop1")
	tr.symlink("loop1", ".claude/loop2")
	tr.symlink("loop1", ".claude/CLAUDE.md")
	tr.write("sub/AGENTS.md", "sub")

	c := tr.target(anthropic, "sub/f")
	wantLabels(t, c, "sub/AGENTS.md")
	want := map[string]string{
		"AGENTS.override.md": "not a regular file (fifo)",
		"AGENTS.md":          "not a regular file (socket)",
		"AGENTS.MD":          "link leaves the project root",
		"CLAUDE.md":          "not a regular file (directory)",
		"CLAUDE.MD":          "dangling link",
		".claude/CLAUDE.md":  "link loop",
	}
	for name, reason := range want {
		if got := skipReason(c, tr.abs(name)); got != reason {
			t.Errorf("%s: reason %q, want %q", name, got, reason)
		}
	}
	if len(c.Skipped) != len(want) {
		t.Errorf("skipped %+v", c.Skipped)
	}
	// Inside the root, /dev/null is still refused as a device.
	tr.symlink("/dev/null", "sub/dev")
	tr.symlink("dev", "sub/AGENTS.override.md")
	r := New(Options{})
	c2, err := r.ResolveTarget(context.Background(), "/", filepath.Join(tr.root, "sub/x"))
	if err != nil {
		t.Fatal(err)
	}
	if got := skipReason(c2, tr.abs("sub/AGENTS.override.md")); got != "not a regular file (character device)" {
		t.Errorf("device reason %q", got)
	}
}

func TestLinksLeavingTheRoot(t *testing.T) {
	tr := newTree(t)
	outside := filepath.Join(tr.base, "outside")
	tr.write(filepath.Join(outside, "AGENTS.md"), "outside rules")
	tr.write(filepath.Join(outside, "deep/AGENTS.md"), "outside deep")
	tr.write(filepath.Join(outside, "CLAUDE.md"), "outside claude")
	tr.write("AGENTS.md", "root")
	tr.symlink(filepath.Join(outside, "AGENTS.md"), "a/AGENTS.md")
	tr.write("a/CLAUDE.md", "a claude")
	tr.symlink(outside, "b/.claude")
	tr.symlink(outside, "out")               // directory link leaving R
	tr.symlink("../..", "c/parent")          // relative link climbing out
	tr.write("real/AGENTS.md", "real rules") // link inside R
	tr.symlink("real", "alias")              //
	tr.symlink(filepath.Join(tr.root, "real"), "c/abs-in")

	c := tr.target(noModel, "a/x.go")
	wantLabels(t, c, "AGENTS.md", "a/CLAUDE.md")
	if r := skipReason(c, tr.abs("a/AGENTS.md")); r != "link leaves the project root" {
		t.Errorf("file link: %q", r)
	}
	c = tr.target(noModel, "b/x.go")
	wantLabels(t, c, "AGENTS.md")
	if r := skipReason(c, tr.abs("b/.claude/CLAUDE.md")); r != "link leaves the project root" {
		t.Errorf(".claude link: %q", r)
	}
	for _, target := range []string{"out/deep/x.go", "out/x.go", "c/parent/proj/AGENTS.md", "c/parent/outside/deep/y"} {
		c = tr.target(noModel, target)
		wantLabels(t, c, "AGENTS.md")
		if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "leaves the project root") || !c.Fallback {
			t.Errorf("%s: warnings %q", target, c.Warnings)
		}
	}
	// A link inside the root is followed: the chain is the real directory's.
	for _, target := range []string{"alias/x.go", "c/abs-in/x.go", tr.root + "/alias/new/dir/"} {
		c = tr.target(noModel, target)
		wantLabels(t, c, "AGENTS.md", "real/AGENTS.md")
	}
	if c.Dir != tr.abs("real/new/dir") {
		t.Errorf("dir %q", c.Dir)
	}
}

func TestGlobalLinks(t *testing.T) {
	tr := newTree(t)
	dot := filepath.Join(tr.base, "dotfiles")
	tr.write(filepath.Join(dot, "AGENTS.md"), "linked global")
	tr.write(filepath.Join(dot, "agent/CLAUDE.md"), "global claude in real dir")
	tr.symlink(filepath.Join(dot, "AGENTS.md"), filepath.Join(tr.agent, "AGENTS.md"))
	c := tr.target(anthropic, "")
	if r := skipReason(c, filepath.Join(tr.agent, "AGENTS.md")); r != "link leaves the agent directory" {
		t.Errorf("global link reason %q", r)
	}
	// The agent directory itself may be a link; labels keep "~".
	linked := filepath.Join(tr.home, ".pi", "linked")
	tr.symlink(filepath.Join(dot, "agent"), linked)
	r := New(Options{AgentDir: linked, Home: tr.home, Model: anthropic})
	c, err := r.ResolveRoot(context.Background(), tr.root)
	if err != nil {
		t.Fatal(err)
	}
	wantLabels(t, c, "~/.pi/linked/CLAUDE.md")
	// Outside home the label is absolute.
	r = New(Options{AgentDir: filepath.Join(dot, "agent"), Home: filepath.Join(tr.base, "elsewhere"), Model: anthropic})
	c, _ = r.ResolveRoot(context.Background(), tr.root)
	wantLabels(t, c, filepath.Join(dot, "agent", "CLAUDE.md"))
}

func TestTargets(t *testing.T) {
	tr := newTree(t)
	tr.write("AGENTS.md", "root")
	tr.write("sub/AGENTS.md", "sub")
	tr.write("sub2/AGENTS.md", "sub2")
	tr.write("file.go", "x")
	outsideWarn := []string{"../x", "sub/../../x", "/etc/passwd", tr.base, tr.root + "-sibling/x"}
	for _, target := range outsideWarn {
		c := tr.target(noModel, target)
		wantLabels(t, c, "AGENTS.md")
		if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "outside the project root") {
			t.Errorf("%q: warnings %q", target, c.Warnings)
		}
	}
	c := tr.target(noModel, "sub/\x00/x")
	wantLabels(t, c, "AGENTS.md")
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "NUL") {
		t.Errorf("NUL warnings %q", c.Warnings)
	}
	cases := map[string][]string{
		"sub/../sub2/f.go":       {"AGENTS.md", "sub2/AGENTS.md"},
		tr.abs("sub/x.go"):       {"AGENTS.md", "sub/AGENTS.md"},
		"sub":                    {"AGENTS.md", "sub/AGENTS.md"},
		"sub/new/deeper/file.go": {"AGENTS.md", "sub/AGENTS.md"},
		"file.go":                {"AGENTS.md"},
		"file.go/not-a-dir":      {"AGENTS.md"},
		".":                      {"AGENTS.md"},
		"./sub//x":               {"AGENTS.md", "sub/AGENTS.md"},
	}
	for target, want := range cases {
		c := tr.target(noModel, target)
		wantLabels(t, c, want...)
		if len(c.Warnings) != 0 {
			t.Errorf("%q: warnings %q", target, c.Warnings)
		}
	}
	if c := tr.target(noModel, "sub/new/deeper/file.go"); c.Dir != tr.abs("sub/new/deeper") {
		t.Errorf("dir of a file to be written = %q", c.Dir)
	}
	if c := tr.target(noModel, "sub/newdir/"); c.Dir != tr.abs("sub/newdir") {
		t.Errorf("dir of a missing directory = %q", c.Dir)
	}
	if c := tr.target(noModel, "sub"); c.Dir != tr.abs("sub") {
		t.Errorf("dir of an existing directory = %q", c.Dir)
	}
	// The root may be given through a link; absolute targets written
	// through the same link still resolve.
	link := tr.symlink(tr.root, filepath.Join(tr.base, "rootlink"))
	c, err := New(Options{}).ResolveTarget(context.Background(), link, filepath.Join(link, "sub/x"))
	if err != nil {
		t.Fatal(err)
	}
	wantLabels(t, c, "AGENTS.md", "sub/AGENTS.md")
	if c.Root != tr.root {
		t.Errorf("root %q not canonical", c.Root)
	}
}

func TestRootErrors(t *testing.T) {
	tr := newTree(t)
	tr.write("AGENTS.md", "root")
	r := tr.resolver(noModel)
	if _, err := r.ResolveRoot(context.Background(), tr.root); err != nil {
		t.Fatal(err)
	}
	file := tr.write(filepath.Join(tr.base, "plain"), "x")
	if _, err := r.ResolveRoot(context.Background(), file); err == nil || err.Error() != "project root "+file+" is not a directory" {
		t.Errorf("file root: %v", err)
	}
	if err := os.RemoveAll(tr.root); err != nil {
		t.Fatal(err)
	}
	_, err := r.ResolveTarget(context.Background(), tr.root, "x")
	if err == nil || err.Error() != "project root "+tr.root+" does not exist" || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("deleted root: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.ResolveRoot(ctx, tr.base); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestNodeModules(t *testing.T) {
	tr := newTree(t)
	tr.write("AGENTS.md", "root")
	tr.write("node_modules/pkg/AGENTS.md", "dependency rules")
	tr.write("node_modules/AGENTS.md", "dependency rules")
	tr.write("web/node_modules/x/CLAUDE.md", "dependency rules")
	tr.write("web/AGENTS.md", "web")
	tr.symlink("node_modules/pkg", "linked-dep")
	for target, want := range map[string][]string{
		"node_modules/pkg/index.js": {"AGENTS.md"},
		"web/node_modules/x/y/z.js": {"AGENTS.md", "web/AGENTS.md"},
		"linked-dep/index.js":       {"AGENTS.md"},
		"web/node_modules_not/a.js": {"AGENTS.md", "web/AGENTS.md"},
	} {
		c := tr.target(anthropic, target)
		wantLabels(t, c, want...)
		if target != "web/node_modules_not/a.js" && (len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "node_modules")) {
			t.Errorf("%s: warnings %q", target, c.Warnings)
		}
	}
	// A project that itself lives in node_modules keeps its instructions.
	c, err := New(Options{}).ResolveRoot(context.Background(), tr.abs("node_modules/pkg"))
	if err != nil {
		t.Fatal(err)
	}
	wantLabels(t, c, "AGENTS.md")
}

func TestBinaryContentIsSkipped(t *testing.T) {
	tr := newTree(t)
	p := tr.write("AGENTS.md", "")
	if err := os.Truncate(p, 1<<30); err != nil { // all NUL bytes
		t.Fatal(err)
	}
	tr.write("CLAUDE.md", "fallback rules")
	c := tr.target(noModel, "")
	wantLabels(t, c, "CLAUDE.md")
	if !strings.Contains(skipReason(c, p), "binary content") {
		t.Errorf("skips = %+v", c.Skipped)
	}
}

func TestLinkIntoNodeModulesIsSkipped(t *testing.T) {
	tr := newTree(t)
	tr.write("node_modules/pkg/AGENTS.md", "package rules")
	tr.mkdir("q")
	link := tr.symlink("../node_modules/pkg/AGENTS.md", "q/AGENTS.md")
	c := tr.target(noModel, "q/x.go")
	for _, l := range labels(c) {
		if l == "q/AGENTS.md" {
			t.Errorf("a link into node_modules was loaded: %v", labels(c))
		}
	}
	if skipReason(c, link) != "link into node_modules" {
		t.Errorf("skips = %+v", c.Skipped)
	}
}

func TestHugeSparseFileIsReadBounded(t *testing.T) {
	tr := newTree(t)
	// 64 KiB of real text, then a 1 GB hole: a huge file of rules.
	p := tr.write("AGENTS.md", strings.Repeat("- keep it short\n", 4096))
	if err := os.Truncate(p, 1<<30); err != nil {
		t.Fatal(err)
	}
	r := tr.resolver(noModel)
	read := 0
	r.readHook = func(n int) { read += n }
	c, err := r.ResolveRoot(context.Background(), tr.root)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Sources[0]
	if read > 64<<10 || s.Bytes != 1<<30 || !s.Truncated || s.ShownBytes > DefaultBudgetBytes {
		t.Errorf("read %d bytes; source %+v", read, s)
	}
	if !strings.Contains(c.Text, "the file has 1073741824 bytes); read the file for the rest.]") {
		t.Errorf("note missing")
	}
	// A huge file that is blank at the start is skipped, and says why.
	// (Blank text is read on, a few times over, in case the rules start
	// late; the raw read stays bounded.)
	q := tr.write("sub/AGENTS.md", strings.Repeat(" ", 200000)+"late rules")
	if err := os.Truncate(q, 1<<30); err != nil {
		t.Fatal(err)
	}
	r = tr.resolver(noModel)
	read = 0
	r.readHook = func(n int) { read += n }
	c, err = r.ResolveTarget(context.Background(), tr.root, tr.abs("sub/x"))
	if err != nil {
		t.Fatal(err)
	}
	if r := skipReason(c, q); !strings.HasPrefix(r, "only white space in its first") {
		t.Errorf("blank prefix reason %q", r)
	}
	if bound := 2 * readGrowth * (DefaultBudgetBytes + readSlack); read > bound {
		t.Errorf("read %d bytes of a blank 1 GB file; bound %d", read, bound)
	}
}

func TestJSONContract(t *testing.T) {
	tr := newTree(t)
	c := tr.target(noModel, "x")
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"root":"` + tr.root + `","target":"` + tr.abs("x") + `","budgetBytes":32768,"usedBytes":0,"sources":[],"skipped":[],"warnings":[],"text":""}`
	if string(b) != want {
		t.Errorf("json\n got %s\nwant %s", b, want)
	}
	tr.write("AGENTS.md", "rules")
	b, _ = json.Marshal(tr.target(noModel, "x").Sources[0])
	if string(b) != `{"scope":"project","kind":"instructions","label":"AGENTS.md","path":"`+tr.abs("AGENTS.md")+`","bytes":5,"shownBytes":5,"truncated":false}` {
		t.Errorf("source json %s", b)
	}
	if Render(nil) != "" {
		t.Error("empty chain must render empty")
	}
}

// TestPermissionDenied needs an unprivileged user: root reads through mode
// 000. When run as root it re-executes itself as nobody and checks there.
func TestPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 && os.Getenv("INSTRUCTIONS_TEST_CHILD") == "" {
		runAsNobody(t, "TestPermissionDenied")
		return
	}
	tr := newTree(t)
	tr.write("AGENTS.md", "root")
	locked := tr.write("sub/AGENTS.override.md", "secret")
	tr.write("sub/AGENTS.md", "sub")
	closed := tr.mkdir("closed")
	tr.write("closed/AGENTS.md", "closed")
	tr.write("closed/inner/AGENTS.md", "inner")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(closed, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(closed, 0o755) })
	if f, err := os.Open(locked); err == nil {
		f.Close()
		t.Skip("mode 000 does not block this user; cannot test permission errors")
	}
	c := tr.target(noModel, "sub/x")
	wantLabels(t, c, "AGENTS.md", "sub/AGENTS.md")
	if r := skipReason(c, locked); r != "permission denied" {
		t.Errorf("locked file: %q", r)
	}
	c = tr.target(noModel, "closed/inner/x")
	wantLabels(t, c, "AGENTS.md")
	if r := skipReason(c, closed); r != "permission denied (directory)" {
		t.Errorf("locked dir: %q (skipped %+v)", r, c.Skipped)
	}
}

// Invalid UTF-8 reads as Node (and so pi) reads it: one U+FFFD per maximal
// invalid subsequence, not one per byte.
func TestInvalidUTF8IsReplacedAsPiReplacesIt(t *testing.T) {
	tr := newTree(t)
	tr.write("AGENTS.md", "a\xe2\x82b \xff\xfe c\n")
	s := tr.target(noModel, "").Sources[0]
	if want := "a\uFFFDb \uFFFD\uFFFD c"; s.Content != want {
		t.Errorf("content = %q, want %q", s.Content, want)
	}
}

// A large CRLF file alone in the chain shows (nearly) the whole budget:
// the CRs that normalisation drops do not shrink what the model gets.
func TestLargeCRLFFileGetsItsFullShare(t *testing.T) {
	tr := newTree(t)
	tr.write("AGENTS.md", strings.Repeat("rule\r\n", 20000)) // 120 KB
	s := tr.target(noModel, "").Sources[0]
	if !s.Truncated || s.ShownBytes < DefaultBudgetBytes-8 || s.ShownBytes > DefaultBudgetBytes {
		t.Errorf("shown %d of a %d-byte budget (truncated %v)", s.ShownBytes, DefaultBudgetBytes, s.Truncated)
	}
	if strings.Contains(s.Content, "\r") {
		t.Error("CRs reached the model")
	}
}
