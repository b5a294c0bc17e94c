package skills

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

type golden struct {
	Listing     string `json:"listing"`
	ListingBash string `json:"listingBash"`
	Templates   []struct {
		Name, Description, ArgumentHint, Content string
	} `json:"templates"`
	Expand map[string]string   `json:"expand"`
	Args   map[string][]string `json:"args"`
	Subst  map[string]string   `json:"subst"`
}

// fixture copies testdata/pifixture (the files pi's golden output was
// made from, at /tmp/skfix) into a temp dir and returns it with the
// golden output rewritten for that dir.
func fixture(t *testing.T) (string, golden) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", "pifixture")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "pi-0.85.1-golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Paths in the JSON are plain ASCII, so a textual swap is exact.
	raw = []byte(strings.ReplaceAll(string(raw), "/tmp/skfix", dir))
	var g golden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	return dir, g
}

func load(dir string, trusted bool) *Set {
	return Load(Options{AgentDir: filepath.Join(dir, "agent"), Home: filepath.Join(dir, "home"), Root: filepath.Join(dir, "proj"),
		Trusted: trusted, SkillCommands: true})
}

// The model sees the skills exactly as pi lists them.
func TestSkillListingIsPis(t *testing.T) {
	dir, g := fixture(t)
	s := load(dir, true)
	if len(s.Warnings) > 0 {
		t.Errorf("warnings: %q", s.Warnings)
	}
	if got, want := s.PromptSection([]string{"read", "bash"}), strings.TrimPrefix(g.Listing, "\n\n"); got != want {
		t.Errorf("listing =\n%q\npi's =\n%q", got, want)
	}
	if got, want := s.PromptSection([]string{"bash"}), strings.TrimPrefix(g.ListingBash, "\n\n"); got != want {
		t.Errorf("bash listing =\n%q\npi's =\n%q", got, want)
	}
	if got := s.PromptSection([]string{"ls"}); got != "" {
		t.Errorf("no read tool but a listing: %q", got)
	}
}

// /skill:name and /template expand byte for byte as pi expands them, with
// pi's argument syntax.
func TestExpansionIsPis(t *testing.T) {
	dir, g := fixture(t)
	s := load(dir, true)
	if len(g.Expand) < 10 {
		t.Fatal("golden file incomplete")
	}
	for in, want := range g.Expand {
		got, err := s.Expand(in)
		if err != nil || got != want {
			t.Errorf("Expand(%q) =\n%q, %v\npi's:\n%q", in, got, err, want)
		}
	}
	for in, want := range g.Args {
		if got := ParseArgs(in); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("ParseArgs(%q) = %q, pi's %q", in, got, want)
		}
	}
	for key, want := range g.Subst {
		var c struct {
			content string
			args    []string
		}
		var pair []json.RawMessage
		json.Unmarshal([]byte(key), &pair)
		json.Unmarshal(pair[0], &c.content)
		json.Unmarshal(pair[1], &c.args)
		if got := SubstituteArgs(c.content, c.args); got != want {
			t.Errorf("SubstituteArgs(%q, %q) = %q, pi's %q", c.content, c.args, got, want)
		}
	}
	if len(s.Templates) != len(g.Templates) {
		t.Fatalf("templates = %+v", s.Templates)
	}
	for i, w := range g.Templates {
		got := s.Templates[i]
		if got.Name != w.Name || got.Description != w.Description || got.ArgumentHint != w.ArgumentHint || got.Content != w.Content {
			t.Errorf("template %d = %+v, pi's %+v", i, got, w)
		}
	}
}

// A project's skills and templates count only when it is trusted.
func TestProjectSkillsAndTemplatesNeedTrust(t *testing.T) {
	dir, _ := fixture(t)
	agents := filepath.Join(dir, "proj", ".agents", "skills", "lint")
	os.MkdirAll(agents, 0o755)
	os.WriteFile(filepath.Join(agents, "SKILL.md"), []byte("---\ndescription: Lint\n---\nrun lint"), 0o644)
	s := load(dir, false)
	var names []string
	for _, c := range s.Commands() {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "plain,skill:pdf" {
		t.Errorf("untrusted commands = %s", got)
	}
	if out, _ := s.Expand("/review a"); out != "/review a" {
		t.Errorf("an untrusted project's template expanded: %q", out)
	}
	names = nil
	for _, c := range load(dir, true).Commands() {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "review,plain,skill:deploy,skill:lint,skill:pdf" {
		t.Errorf("trusted commands = %s", got)
	}
}

// Skill and template files are untrusted input: bad frontmatter, bad
// names, FIFOs and huge files are skipped with a warning; name clashes go
// to the first found (the project's).
func TestBadSkillFilesAreSkippedWithAWarning(t *testing.T) {
	dir := t.TempDir()
	agent, root := filepath.Join(dir, "agent"), filepath.Join(dir, "proj")
	write := func(p, text string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(agent, "skills", "broken", "SKILL.md"), "---\ndescription: [unclosed\n---\nx")
	write(filepath.Join(agent, "skills", "Bad_Name", "SKILL.md"), "---\ndescription: d\n---\nx")
	write(filepath.Join(agent, "skills", "nodesc", "SKILL.md"), "---\nname: nodesc\n---\nx")
	write(filepath.Join(agent, "skills", "big", "SKILL.md"), "---\ndescription: d\n---\n"+strings.Repeat("x", MaxFileSize))
	write(filepath.Join(agent, "skills", "notes.md"), "just notes, no frontmatter")
	write(filepath.Join(agent, "skills", "dup", "SKILL.md"), "---\nname: shared\ndescription: user's\n---\nx")
	write(filepath.Join(root, ".pi", "skills", "shared", "SKILL.md"), "---\ndescription: project's\n---\nx")
	write(filepath.Join(agent, "prompts", "has space.md"), "x")
	write(filepath.Join(agent, "prompts", "badyaml.md"), "---\n: : :\n---\nx")
	fifo := filepath.Join(agent, "skills", "fifo", "SKILL.md")
	os.MkdirAll(filepath.Dir(fifo), 0o755)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A link back up the tree must not loop.
	os.Symlink(filepath.Join(agent, "skills"), filepath.Join(agent, "skills", "loop"))

	s := Load(Options{AgentDir: agent, Root: root, Trusted: true, SkillCommands: true})
	if len(s.Skills) != 1 || s.Skills[0].Name != "shared" || s.Skills[0].Description != "project's" {
		t.Errorf("skills = %+v", s.Skills)
	}
	all := strings.Join(s.Warnings, "\n")
	for _, want := range []string{"broken/SKILL.md skipped: its frontmatter is not valid YAML", "Bad_Name/SKILL.md skipped: its name \"Bad_Name\"",
		"nodesc/SKILL.md skipped: its frontmatter has no description", "big/SKILL.md skipped: larger than",
		"dup/SKILL.md skipped: the name \"shared\" is taken by", "has space.md skipped", "badyaml.md skipped"} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning %q in:\n%s", want, all)
		}
	}
	if strings.Contains(all, "notes.md") {
		t.Errorf("a plain .md without a description is just not a skill:\n%s", all)
	}
	for _, w := range s.Warnings {
		if strings.Contains(w, "\n") {
			t.Errorf("warning of more than one line: %q", w)
		}
	}
}

// Settings paths add skills and templates (relative ones to their own
// settings file's folder), hidden skills stay out of the listing, and
// enableSkillCommands off turns /skill: off.
func TestSettingsPathsHiddenSkillsAndSkillCommandsOff(t *testing.T) {
	dir := t.TempDir()
	agent, root := filepath.Join(dir, "agent"), filepath.Join(dir, "proj")
	write := func(p, text string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	write(filepath.Join(dir, "extra", "one", "SKILL.md"), "---\ndescription: One\ndisable-model-invocation: true\n---\nbody one")
	write(filepath.Join(root, ".pi", "mine", "fix.md"), "---\ndescription: Fix it\n---\nfix $@")
	s := Load(Options{AgentDir: agent, Root: root, Trusted: true, SkillCommands: false,
		GlobalSkillPaths: []string{filepath.Join(dir, "extra"), "!excluded/**"}, ProjectPromptPaths: []string{"mine/fix.md"}})
	if len(s.Skills) != 1 || !s.Skills[0].HideFromModel || len(s.Templates) != 1 {
		t.Fatalf("set = %+v", s)
	}
	if got := s.PromptSection([]string{"read"}); got != "" {
		t.Errorf("a hidden skill was listed: %q", got)
	}
	if got, _ := s.Expand("/skill:one"); got != "/skill:one" {
		t.Errorf("/skill: with enableSkillCommands off = %q", got)
	}
	if got, _ := s.Expand("/fix the bug"); got != "fix the bug" {
		t.Errorf("template from a project settings path = %q", got)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), `"!excluded/**" is a pattern`) {
		t.Errorf("warnings = %q", s.Warnings)
	}
}

// A skill file that went away, or became a FIFO, between listing and use
// is an error at once, not a hang nor a prompt sent without it.
func TestExpandingAVanishedSkillFails(t *testing.T) {
	dir, _ := fixture(t)
	s := load(dir, true)
	path := filepath.Join(dir, "agent", "skills", "pdf", "SKILL.md")
	os.Remove(path)
	if _, err := s.Expand("/skill:pdf go"); err == nil || !strings.Contains(err.Error(), "SKILL.md cannot be read") {
		t.Errorf("err = %v", err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Expand("/skill:pdf go"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO: err = %v", err)
	}
}
