package skills

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

// PromptSection lists the skills the model may load, exactly as pi
// appends them to its system prompt (without pi's two leading newlines:
// the runtime joins sections with a blank line). Skills hidden from the
// model are left out; with no read tool the model is told to load them
// with bash, and with neither tool there is no listing, as in pi.
func (s *Set) PromptSection(tools []string) string {
	readTool := ""
	for _, want := range []string{"read", "bash"} {
		for _, t := range tools {
			if t == want && readTool == "" {
				readTool = want
			}
		}
	}
	if s == nil || readTool == "" {
		return ""
	}
	var visible []Skill
	for _, sk := range s.Skills {
		if !sk.HideFromModel {
			visible = append(visible, sk)
		}
	}
	if len(visible) == 0 {
		return ""
	}
	how := "Use the read tool to load a skill's file when the task matches its description."
	if readTool == "bash" {
		how = "Use bash to load a skill's file when the task matches its description."
	}
	lines := []string{
		"The following skills provide specialized instructions for specific tasks.",
		how,
		"When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
		"",
		"<available_skills>",
	}
	for _, sk := range visible {
		lines = append(lines, "  <skill>",
			"    <name>"+escapeXML(sk.Name)+"</name>",
			"    <description>"+escapeXML(sk.Description)+"</description>",
			"    <location>"+escapeXML(sk.Path)+"</location>",
			"  </skill>")
	}
	lines = append(lines, "</available_skills>")
	return strings.Join(lines, "\n")
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func escapeXML(s string) string { return xmlEscaper.Replace(s) }

// Command is one thing the chat input completes: a skill ("skill:name")
// or a template ("name"), with what a menu shows about it.
type Command struct {
	Name         string // without the leading /
	Description  string
	ArgumentHint string
	Skill        bool
}

// Commands lists the templates, then the skills (when /skill: commands
// are on), as pi offers them.
func (s *Set) Commands() []Command {
	if s == nil {
		return nil
	}
	var out []Command
	for _, t := range s.Templates {
		out = append(out, Command{Name: t.Name, Description: t.Description, ArgumentHint: t.ArgumentHint})
	}
	if s.SkillCommands {
		for _, sk := range s.Skills {
			out = append(out, Command{Name: "skill:" + sk.Name, Description: sk.Description, Skill: true})
		}
	}
	return out
}

// Expand turns /skill:name args and /template args into the text the
// model receives, as pi does; any other text comes back unchanged (an
// unknown name too, as in pi). A skill file that can no longer be read
// is an error: the prompt should not go out without it.
func (s *Set) Expand(text string) (string, error) {
	if s == nil {
		return text, nil
	}
	text, err := s.expandSkill(text)
	if err != nil {
		return "", err
	}
	return s.expandTemplate(text), nil
}

// expandSkill: the name runs from "/skill:" to the first space; the
// arguments are what follows it, trimmed. The skill's file is read again,
// so an edit shows at once.
func (s *Set) expandSkill(text string) (string, error) {
	if !s.SkillCommands || !strings.HasPrefix(text, "/skill:") {
		return text, nil
	}
	name, args, hasArgs := strings.Cut(text[len("/skill:"):], " ")
	var sk *Skill
	for i := range s.Skills {
		if s.Skills[i].Name == name {
			sk = &s.Skills[i]
			break
		}
	}
	if sk == nil {
		return text, nil
	}
	data, err := readBounded(sk.Path)
	if err != nil {
		return "", fmt.Errorf("skill %s cannot be read: %v", sk.Path, err)
	}
	_, body, err := splitFrontmatter(data)
	if err != nil {
		return "", fmt.Errorf("skill %s: its frontmatter is not valid YAML (%s)", sk.Path, yamlProblem(err))
	}
	block := fmt.Sprintf("<skill name=\"%s\" location=\"%s\">\nReferences are relative to %s.\n\n%s\n</skill>", sk.Name, sk.Path, sk.Dir, jsTrim(body))
	if args = jsTrim(args); hasArgs && args != "" {
		return block + "\n\n" + args, nil
	}
	return block, nil
}

// expandTemplate: "/name" up to the first white space, then (after the
// white space) the arguments, split shell-style.
func (s *Set) expandTemplate(text string) string {
	if !strings.HasPrefix(text, "/") {
		return text
	}
	rest := text[1:]
	end := strings.IndexFunc(rest, isJSSpace)
	name, args := rest, ""
	if end >= 0 {
		name, args = rest[:end], strings.TrimLeftFunc(rest[end:], isJSSpace)
	}
	if name == "" {
		return text
	}
	for _, t := range s.Templates {
		if t.Name == name {
			return SubstituteArgs(t.Content, ParseArgs(args))
		}
	}
	return text
}

// ParseArgs splits template arguments as pi does: on white space, with
// '…' and "…" grouping (the quotes dropped, no escapes), empty pieces
// dropped.
func ParseArgs(s string) []string {
	var args []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote = r
		case isJSSpace(r):
			if cur.Len() > 0 {
				args = append(args, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		args = append(args, cur.String())
	}
	return args
}

// placeholder matches pi's template placeholders, in pi's order of
// precedence: ${N:-default} (also ${@:-…}, ${ARGUMENTS:-…}), ${@:N} and
// ${@:N:L}, then $N, $@ and $ARGUMENTS.
var placeholder = regexp.MustCompile(`\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)`)

// SubstituteArgs fills a template's placeholders in one pass over the
// template, so an argument that looks like a placeholder stays as typed:
// $1, $2 … (missing ones empty), $@ and $ARGUMENTS (all, joined by a
// space), ${@:N} (from the Nth on; 0 counts as 1), ${@:N:L} (L of them),
// and ${N:-default}, ${@:-default} (the default when missing or empty).
func SubstituteArgs(content string, args []string) string {
	all := strings.Join(args, " ")
	arg := func(digits string) string {
		n, err := strconv.Atoi(digits)
		if err != nil || n < 1 || n > len(args) {
			return ""
		}
		return args[n-1]
	}
	return placeholder.ReplaceAllStringFunc(content, func(m string) string {
		g := placeholder.FindStringSubmatch(m)
		switch {
		case g[1] != "":
			v := all
			if g[1] != "@" && g[1] != "ARGUMENTS" {
				v = arg(g[1])
			}
			if v == "" {
				return g[2]
			}
			return v
		case g[3] != "":
			start := index(g[3]) - 1
			start = max(start, 0)
			if start >= len(args) {
				return ""
			}
			end := len(args)
			if g[4] != "" {
				end = min(start+index(g[4]), len(args))
			}
			return strings.Join(args[start:end], " ")
		case g[5] == "@" || g[5] == "ARGUMENTS":
			return all
		}
		return arg(g[5])
	})
}

// index reads a placeholder's digits; a number too large for an int is
// past every argument, as it is in JavaScript.
func index(digits string) int {
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 1 << 30
	}
	return min(n, 1<<30)
}

// isJSSpace is JavaScript's \s (and what String.prototype.trim removes).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// jsTrim is String.prototype.trim.
func jsTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }

func utf16Units(s string) []uint16 { return utf16.Encode([]rune(s)) }

func utf16String(u []uint16) string { return string(utf16.Decode(u)) }
