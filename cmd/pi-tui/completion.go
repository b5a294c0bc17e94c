package main

import (
	"sort"
	"strings"
)

// completeCommand is the hidden command the completion scripts call:
// `pi-tui __complete -- WORD…` prints the candidates for the last WORD,
// one a line, or filesMarker when the shell should complete file names.
const completeCommand = "__complete"

const filesMarker = "__files__"

// fileFlags take a file or folder.
var fileFlags = map[string]bool{"data-dir": true, "agent-dir": true, "file": true, "root": true, "authorized-keys": true, "host-key": true}

var completionScripts = map[string]string{
	"bash": `# pi-tui completion for bash: source <(pi-tui completion bash)
_pi_tui() {
    local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n' out
    out=$(pi-tui __complete -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
    if [[ $out == __files__ ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$out" -- "$cur"))
    fi
}
complete -o filenames -F _pi_tui pi-tui
`,
	"zsh": `#compdef pi-tui
# pi-tui completion for zsh: source <(pi-tui completion zsh)
_pi_tui() {
    local -a items
    items=("${(@f)$(pi-tui __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    if [[ ${items[1]} == __files__ ]]; then
        _files
    else
        compadd -a items
    fi
}
compdef _pi_tui pi-tui
`,
	"fish": `# pi-tui completion for fish: pi-tui completion fish | source
function __pi_tui_complete
    set -l out (pi-tui __complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)
    if test "$out[1]" = __files__
        __fish_complete_path (commandline -ct)
    else
        printf '%s\n' $out
    end
end
complete -c pi-tui -f -a '(__pi_tui_complete)'
`,
}

func (a *app) completionCmd(args []string) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		return a.helpCmd([]string{"completion"})
	}
	if len(args) != 1 || completionScripts[args[0]] == "" {
		return usagef("completion needs one shell: bash, zsh or fish")
	}
	return writeText(a.stdout, completionScripts[args[0]])
}

// completeCmd prints the candidates for the last word. It never fails
// loudly: a shell completing a half-typed line must not print errors.
func (a *app) completeCmd(words []string) error {
	if len(words) > 0 && words[0] == "--" {
		words = words[1:]
	}
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	for _, c := range a.candidates(before, cur) {
		if strings.HasPrefix(c, cur) || c == filesMarker {
			say(a.stdout, "%s\n", c)
		}
	}
	return nil
}

// candidates works out what may stand at cur after the words before it.
func (a *app) candidates(before []string, cur string) []string {
	var words []string // the words that name the command
	var cmd *command
	values := map[string]string{} // flag values given so far
	given := 0                    // positional arguments after the command
	for i := 0; i < len(before); i++ {
		w := before[i]
		if name, ok := strings.CutPrefix(w, "-"); ok {
			name = strings.TrimPrefix(name, "-")
			name, value, hasValue := strings.Cut(name, "=")
			if !hasValue && takesValue(cmd, name) && i+1 < len(before) {
				i++
				value = before[i]
			}
			values[name] = value
			continue
		}
		if cmd == nil {
			words = append(words, w)
			if c, ok := lookup(strings.Join(words, " ")); ok {
				cmd = &c
			}
		} else if c, ok := lookup(cmd.path + " " + w); ok && given == 0 {
			cmd = &c // "projects folders add": a command below a command
		} else {
			given++
		}
	}
	if v := values["data-dir"]; v != "" {
		a.dataDir = v
	}
	if v := values["agent-dir"]; v != "" {
		a.agentDir = v
	}
	// The value of a flag.
	if n := len(before); n > 0 && strings.HasPrefix(before[n-1], "-") && !strings.Contains(before[n-1], "=") {
		name := strings.TrimLeft(before[n-1], "-")
		if takesValue(cmd, name) {
			return a.flagValues(name, values)
		}
	}
	if strings.HasPrefix(cur, "-") {
		return flagNames(cmd)
	}
	if cmd == nil {
		if len(words) == 0 && looksLikePath(cur) {
			return []string{filesMarker}
		}
		return nextWords(words)
	}
	switch {
	case cmd.path == "help":
		return nextWords(nil)
	case cmd.path == "completion":
		return []string{"bash", "fish", "zsh"}
	case cmd.argAt(given) == argProject && given == 0 && len(nextWords(strings.Fields(cmd.path))) > 0:
		// A command with commands below it: those, or its own argument.
		return append(nextWords(strings.Fields(cmd.path)), a.projectNames()...)
	case cmd.argAt(given) == argProject:
		return a.projectNames()
	case cmd.argAt(given) == argPath:
		return []string{filesMarker}
	}
	return nil
}

// takesValue tells whether flag name of cmd (nil: the top level) takes a
// value.
func takesValue(cmd *command, name string) bool {
	for _, f := range globalFlags {
		if f.name == name {
			return true
		}
	}
	if cmd != nil {
		for _, f := range cmd.flags {
			if f.name == name {
				return f.value != ""
			}
		}
	}
	return false
}

func flagNames(cmd *command) []string {
	out := []string{"--help"}
	for _, f := range globalFlags {
		out = append(out, "--"+f.name)
	}
	if cmd == nil {
		return append(out, "--version", "--continue")
	}
	for _, f := range cmd.flags {
		if len(f.name) == 1 {
			out = append(out, "-"+f.name)
			continue
		}
		out = append(out, "--"+f.name)
	}
	return out
}

// nextWords are the words that may follow words to name a command.
func nextWords(words []string) []string {
	prefix := strings.Join(words, " ")
	seen := map[string]bool{}
	var out []string
	for _, c := range commands {
		rest := c.path
		if prefix != "" {
			var ok bool
			if rest, ok = strings.CutPrefix(c.path, prefix+" "); !ok {
				continue
			}
		}
		w, _, _ := strings.Cut(rest, " ")
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func (a *app) flagValues(name string, values map[string]string) []string {
	switch {
	case fileFlags[name]:
		return []string{filesMarker}
	case name == "project":
		return a.projectNames()
	case name == "thinking":
		return []string{"off", "minimal", "low", "medium", "high", "xhigh"}
	case name == "session":
		return a.sessionIDs(values["project"])
	}
	return nil
}

func (a *app) projectNames() []string {
	reg, err := a.registry()
	if err != nil {
		return nil
	}
	list, err := reg.List(a.ctx, true)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range list {
		// A name holding a character that shows escaped (a bidi
		// control, a zero-width space) cannot be typed back as it
		// shows: its id completes instead.
		if shown(p.Name) != p.Name {
			out = append(out, p.ID)
			continue
		}
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// sessionIDs are the sessions of --project, or of the project holding the
// working directory.
func (a *app) sessionIDs(project string) []string {
	p, err := a.projectFor(project)
	if err != nil {
		return nil
	}
	list, err := a.sessionList(p.ID)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, s.ID)
	}
	return out
}
