// Package skills finds pi's skills and prompt templates where pi finds
// them, lists skills to the model as pi lists them, and expands the
// commands that call them (/skill:name args and /template args) as pi
// expands them. Skill and template files are untrusted input: reads are
// bounded, never block on a FIFO, and a file with bad frontmatter or a bad
// name is skipped with a warning. A project's own skills and templates
// count only when the project is trusted.
package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Limits on what is read.
const (
	// MaxFileSize bounds one skill or template file.
	MaxFileSize = 256 << 10
	// maxEntries bounds the directory entries one Load looks at, and
	// maxDepth how deep it looks for SKILL.md files.
	maxEntries = 10000
	maxDepth   = 10
	// MaxNameLength and MaxDescriptionLength are pi's limits for skills.
	MaxNameLength        = 64
	MaxDescriptionLength = 1024
)

// Scopes of a skill or template.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
)

// Skill is one skill: a SKILL.md in a folder, or a plain .md file at the
// top of a skills folder.
type Skill struct {
	Name        string
	Description string
	Path        string // the file, absolute
	Dir         string // the folder its relative references start from
	// HideFromModel is disable-model-invocation: the skill is not listed
	// to the model, only called with /skill:name.
	HideFromModel bool
	Scope         string
}

// Template is one prompt template: a .md file called as /name.
type Template struct {
	Name         string
	Description  string
	ArgumentHint string
	Content      string // the body after the frontmatter
	Path         string
	Scope        string
}

// Set is what one project can use.
type Set struct {
	Skills    []Skill
	Templates []Template
	// SkillCommands is enableSkillCommands: /skill:name works.
	SkillCommands bool
	// Warnings name files that were skipped and why, one sentence each.
	Warnings []string
}

// Options say where to look.
type Options struct {
	AgentDir string // ~/.pi/agent: skills/ and prompts/
	Home     string // ~: .agents/skills
	Root     string // the project root, "" for none
	// Trusted admits the project's own skills and templates (.pi/skills,
	// .agents/skills up to the git root, .pi/prompts and the project
	// settings' paths).
	Trusted bool
	// The "skills" and "prompts" entries of the global and the project
	// settings; plain paths (relative ones to the agent dir and to the
	// project's .pi folder).
	GlobalSkillPaths, ProjectSkillPaths   []string
	GlobalPromptPaths, ProjectPromptPaths []string
	SkillCommands                         bool
}

// Load finds the skills and templates in pi's order: the project's
// (settings paths, .pi, then .agents from the root up to the git root)
// before the user's (settings paths, ~/.pi/agent, then ~/.agents). The
// first of a name wins; a later one is reported as a collision.
func Load(o Options) *Set {
	l := &loader{set: &Set{SkillCommands: o.SkillCommands}, seen: map[string]bool{}, names: map[string]string{}, tnames: map[string]string{}}
	userAgents := ""
	if o.Home != "" {
		userAgents = filepath.Join(o.Home, ".agents", "skills")
	}
	projectBase := ""
	if o.Root != "" {
		projectBase = filepath.Join(o.Root, ".pi")
	}
	if o.Trusted && o.Root != "" {
		l.paths(o.ProjectSkillPaths, projectBase, ScopeProject, true, o.Home)
		l.paths(o.ProjectPromptPaths, projectBase, ScopeProject, false, o.Home)
	}
	l.paths(o.GlobalSkillPaths, o.AgentDir, ScopeUser, true, o.Home)
	l.paths(o.GlobalPromptPaths, o.AgentDir, ScopeUser, false, o.Home)
	if o.Trusted && o.Root != "" {
		l.skillDir(filepath.Join(projectBase, "skills"), ScopeProject, true)
		for _, dir := range ancestorAgentDirs(o.Root) {
			if dir != userAgents {
				l.skillDir(dir, ScopeProject, false)
			}
		}
		l.promptDir(filepath.Join(projectBase, "prompts"), ScopeProject)
	}
	if o.AgentDir != "" {
		l.skillDir(filepath.Join(o.AgentDir, "skills"), ScopeUser, true)
	}
	if userAgents != "" {
		l.skillDir(userAgents, ScopeUser, false)
	}
	if o.AgentDir != "" {
		l.promptDir(filepath.Join(o.AgentDir, "prompts"), ScopeUser)
	}
	return l.set
}

// ancestorAgentDirs lists .agents/skills in root and each parent up to
// the git root (the nearest folder holding .git), or up to / without one.
func ancestorAgentDirs(root string) []string {
	gitRoot := ""
	for dir := root; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			gitRoot = dir
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	var out []string
	for dir := root; ; dir = filepath.Dir(dir) {
		out = append(out, filepath.Join(dir, ".agents", "skills"))
		if dir == gitRoot || filepath.Dir(dir) == dir {
			return out
		}
	}
}

type loader struct {
	set     *Set
	seen    map[string]bool   // canonical files already loaded
	names   map[string]string // skill name → file
	tnames  map[string]string // template name → file
	visited int
	warned  bool // the entry limit was reported
}

func (l *loader) warn(format string, args ...any) {
	l.set.Warnings = append(l.set.Warnings, fmt.Sprintf(format, args...))
}

// paths adds the plain path entries of a settings list. Patterns (with
// !, +, - or glob characters) and package sources are pi's package
// filters, which pi-tui does not apply: they are reported and skipped.
func (l *loader) paths(entries []string, base, scope string, skills bool, home string) {
	for _, raw := range entries {
		p := strings.TrimSpace(raw)
		switch {
		case p == "":
			continue
		case strings.ContainsAny(p[:1], "!+-") || strings.ContainsAny(p, "*?[{") || strings.Contains(p, ":") && !filepath.IsAbs(p):
			l.warn("settings: %q is a pattern or a package source, which pi-tui does not apply; it is ignored", raw)
			continue
		}
		switch {
		case p == "~" && home != "":
			p = home
		case strings.HasPrefix(p, "~/") && home != "":
			p = filepath.Join(home, p[2:])
		case !filepath.IsAbs(p):
			p = filepath.Join(base, p)
		}
		fi, err := os.Stat(p)
		if err != nil {
			l.warn("settings: %s does not exist; it is ignored", p)
			continue
		}
		switch {
		case fi.IsDir() && skills:
			l.skillDir(p, scope, true)
		case fi.IsDir():
			l.promptDir(p, scope)
		case fi.Mode().IsRegular() && strings.HasSuffix(p, ".md") && skills:
			l.skillFile(p, scope)
		case fi.Mode().IsRegular() && strings.HasSuffix(p, ".md"):
			l.templateFile(p, scope)
		default:
			l.warn("settings: %s is not a folder or a .md file; it is ignored", p)
		}
	}
}

// entries lists a folder (links followed), within the overall bound.
func (l *loader) entries(dir string) []os.DirEntry {
	if l.visited >= maxEntries {
		return nil
	}
	list, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) && !isNotDir(err) {
			l.warn("%s cannot be read: %v", dir, fsutil.PlainError(err))
		}
		return nil
	}
	if n := maxEntries - l.visited; len(list) > n {
		list = list[:n]
	}
	l.visited += len(list)
	if l.visited >= maxEntries && !l.warned {
		l.warned = true
		l.warn("%s: stopped looking for skills after %d files and folders", dir, maxEntries)
	}
	return list
}

func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// kind follows a link to say what an entry is.
func kind(dir string, e os.DirEntry) (isDir, isFile bool) {
	t := e.Type()
	if t&fs.ModeSymlink != 0 {
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			return false, false
		}
		return fi.IsDir(), fi.Mode().IsRegular()
	}
	return t.IsDir(), t.IsRegular()
}

// skillDir loads a skills folder: a folder holding SKILL.md is one skill
// (nothing below it is looked at); other folders are searched for
// SKILL.md; plain .md files count only at the top of a pi skills folder
// (topFiles), not in .agents/skills.
func (l *loader) skillDir(dir, scope string, topFiles bool) {
	l.walkSkills(dir, scope, topFiles, 0, map[string]bool{})
}

func (l *loader) walkSkills(dir, scope string, files bool, depth int, onPath map[string]bool) {
	if depth > maxDepth {
		return
	}
	// Most places looked in do not exist; one lstat says so, where
	// EvalSymlinks would stat every component of the path first.
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || onPath[real] {
		return // gone, or a link back up the tree
	}
	onPath[real] = true
	defer delete(onPath, real)
	list := l.entries(dir)
	for _, e := range list {
		if e.Name() != "SKILL.md" {
			continue
		}
		if _, isFile := kind(dir, e); isFile {
			l.skillFile(filepath.Join(dir, e.Name()), scope)
			return
		}
	}
	for _, e := range list {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		isDir, isFile := kind(dir, e)
		switch {
		case isDir:
			l.walkSkills(filepath.Join(dir, name), scope, false, depth+1, onPath)
		case isFile && files && strings.HasSuffix(name, ".md"):
			l.skillFile(filepath.Join(dir, name), scope)
		}
	}
}

// namePattern is pi's skill name rule: lowercase letters, digits and
// single hyphens inside.
var namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// skillFile loads one skill file. A SKILL.md needs a description; a plain
// .md file without one is simply not a skill.
func (l *loader) skillFile(path, scope string) {
	if l.dup(path) {
		return
	}
	declared := filepath.Base(path) == "SKILL.md"
	data, err := readBounded(path)
	if err != nil {
		l.warn("skill %s skipped: %v", path, err)
		return
	}
	fm, _, err := splitFrontmatter(data)
	if err != nil {
		if declared {
			l.warn("skill %s skipped: its frontmatter is not valid YAML (%s)", path, yamlProblem(err))
		}
		return
	}
	desc, hasDesc := fm["description"].(string)
	hasDesc = hasDesc && jsTrim(desc) != ""
	if !hasDesc {
		if declared {
			l.warn("skill %s skipped: its frontmatter has no description", path)
		}
		return
	}
	name, _ := fm["name"].(string)
	if name == "" {
		name = filepath.Base(filepath.Dir(path))
	}
	if len(name) > MaxNameLength || !namePattern.MatchString(name) {
		l.warn("skill %s skipped: its name %q must be 1 to %d of a-z, 0-9 and single hyphens inside", path, name, MaxNameLength)
		return
	}
	if n := len(utf16Units(desc)); n > MaxDescriptionLength {
		l.warn("skill %s: its description is longer than %d characters (%d)", path, MaxDescriptionLength, n)
	}
	if first, ok := l.names[name]; ok {
		l.warn("skill %s skipped: the name %q is taken by %s", path, name, first)
		return
	}
	l.names[name] = path
	hide, _ := fm["disable-model-invocation"].(bool)
	l.set.Skills = append(l.set.Skills, Skill{Name: name, Description: desc, Path: path, Dir: filepath.Dir(path), HideFromModel: hide, Scope: scope})
}

// dup reports a file already loaded (the same file through a link).
func (l *loader) dup(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	if l.seen[real] {
		return true
	}
	l.seen[real] = true
	return false
}

// promptDir loads the .md files of a folder (not its subfolders) as
// templates.
func (l *loader) promptDir(dir, scope string) {
	for _, e := range l.entries(dir) {
		if _, isFile := kind(dir, e); isFile && strings.HasSuffix(e.Name(), ".md") {
			l.templateFile(filepath.Join(dir, e.Name()), scope)
		}
	}
}

func (l *loader) templateFile(path, scope string) {
	name := strings.TrimSuffix(filepath.Base(path), ".md")
	if name == "" || strings.IndexFunc(name, func(r rune) bool { return isJSSpace(r) || r < 0x20 || r == 0x7f }) >= 0 {
		l.warn("prompt template %s skipped: its name cannot be typed as a command", path)
		return
	}
	if l.dup(path) {
		return
	}
	data, err := readBounded(path)
	if err != nil {
		l.warn("prompt template %s skipped: %v", path, err)
		return
	}
	fm, body, err := splitFrontmatter(data)
	if err != nil {
		l.warn("prompt template %s skipped: its frontmatter is not valid YAML (%s)", path, yamlProblem(err))
		return
	}
	if first, ok := l.tnames[name]; ok {
		l.warn("prompt template %s skipped: /%s is taken by %s", path, name, first)
		return
	}
	l.tnames[name] = path
	desc := scalarText(fm["description"])
	if desc == "" {
		for _, line := range strings.Split(body, "\n") {
			if jsTrim(line) == "" {
				continue
			}
			// pi cuts the first line at 60 UTF-16 units.
			if u := utf16Units(line); len(u) > 60 {
				desc = utf16String(u[:60]) + "..."
			} else {
				desc = line
			}
			break
		}
	}
	l.set.Templates = append(l.set.Templates, Template{Name: name, Description: desc, ArgumentHint: scalarText(fm["argument-hint"]),
		Content: body, Path: path, Scope: scope})
}

// scalarText is a frontmatter value as JavaScript would print it in a
// template (a string, a number, a boolean); "" for what is empty or false.
func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return ""
	case int:
		if x == 0 {
			return ""
		}
		return fmt.Sprint(x)
	case float64:
		if x == 0 {
			return ""
		}
		return fmt.Sprint(x)
	}
	return ""
}

// readBounded reads a skill or template file: a regular file (opened
// without blocking, so a FIFO is refused) of at most MaxFileSize bytes.
func readBounded(path string) ([]byte, error) {
	data, _, err := fsutil.ReadRegular(path, MaxFileSize)
	if err != nil {
		return nil, fsutil.PlainError(err)
	}
	return data, nil
}

// splitFrontmatter reads YAML frontmatter as pi does: after a BOM is
// dropped and line ends are made LF, a file that starts with --- and has
// a later line starting with --- has frontmatter between them, and its
// body is what follows, trimmed; any other file is all body, untrimmed.
func splitFrontmatter(data []byte) (map[string]any, string, error) {
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	if !strings.HasPrefix(text, "---") {
		return map[string]any{}, text, nil
	}
	end := strings.Index(text[3:], "\n---")
	if end < 0 {
		return map[string]any{}, text, nil
	}
	end += 3
	yml := ""
	if end > 4 {
		yml = text[4:end]
	}
	body := jsTrim(text[end+4:])
	if yml == "" {
		return map[string]any{}, body, nil
	}
	var v any
	if err := yaml.Unmarshal([]byte(yml), &v); err != nil {
		return nil, "", err
	}
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, body, nil
}

// yamlProblem shortens a YAML error to its message.
func yamlProblem(err error) string {
	return strings.TrimPrefix(strings.ReplaceAll(err.Error(), "\n", "; "), "yaml: ")
}
