package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// flagDoc is one flag of a command: its name without dashes, the
// placeholder for its value ("" for a switch) and one line of help.
type flagDoc struct {
	name, value, help string
}

// argKind says what a command's positional arguments are, for
// completion.
type argKind int

const (
	argNone    argKind = iota
	argProject         // a registered project
	argPath            // a file or folder
)

// command is one subcommand: the table that help, completion and the
// check on each parse are made from, so they cannot drift apart.
type command struct {
	path     string // "memory set"
	synopsis string // what follows the path in the usage line
	summary  string // one line
	more     string // further lines of explanation, if any
	flags    []flagDoc
	// args is the kind of each positional argument, in order; the last
	// one stands for any further arguments too (PROJECT...).
	args    []argKind
	example string
}

// argAt is the kind of the positional argument at index i (from 0).
func (c *command) argAt(i int) argKind {
	if len(c.args) == 0 {
		return argNone
	}
	return c.args[min(i, len(c.args)-1)]
}

// Flags several commands share.
var (
	flagJSON    = flagDoc{"json", "", "print JSON instead of a table or text"}
	flagProject = flagDoc{"project", "P", "the project (id, path or name); default: the one holding the working directory"}
	flagModel   = flagDoc{"model", "PROVIDER/ID", "the model, e.g. anthropic/claude-sonnet-4-5; default: pi's default model"}
	flagEngine  = flagDoc{"engine", "auto|pi|builtin", "the engine: your pi, or pi-tui's own; default: PI_TUI_ENGINE, else the setting (auto)"}
	// flagScope keeps a session ID to one project's sessions: an ID
	// several sessions start with is refused otherwise.
	flagScope = flagDoc{"project", "P", "look for ID among this project's sessions only; default: every project's"}
)

// globalFlags may stand anywhere on the line.
var globalFlags = []flagDoc{
	{"data-dir", "D", "pi-tui's data (database, logs); default $PI_TUI_DATA_DIR, else $XDG_DATA_HOME/pi-tui, else ~/.local/share/pi-tui"},
	{"agent-dir", "A", "pi's agent dir (AGENTS.md, models.json, auth.json, settings.json); default $PI_CODING_AGENT_DIR, else ~/.pi/agent"},
}

// commands is every subcommand, in the order help lists them.
var commands = []command{
	{path: "projects list", synopsis: "[--all] [--json]", summary: "list the registered projects",
		flags: []flagDoc{{"all", "", "include archived projects"}, flagJSON}, example: "pi-tui projects list --json"},
	{path: "projects add", synopsis: "PATH [--name NAME] [--trust] [--allow-broad-root] [--new]", summary: "register a folder as a project",
		more: "/ or the home folder: asks first on a terminal, otherwise needs --allow-broad-root.\n" +
			"A folder that looks like a project whose folder is missing (same git remote and first commit,\n" +
			"or same name and instruction files) is refused: relocate that project, or pass --new.",
		flags: []flagDoc{{"name", "NAME", "the project's name; default: the folder's name"},
			{"trust", "", "trust it: nested instructions and the project's .pi settings, skills and prompts load"},
			{"allow-broad-root", "", "allow / or the home folder without asking"},
			{"new", "", "add it as a new project even if it looks like a missing one"}},
		args: []argKind{argPath}, example: "pi-tui projects add ~/src/shop --name shop --trust"},
	{path: "projects rename", synopsis: "PROJECT NAME", summary: "give a project another name", args: []argKind{argProject, argNone},
		example: "pi-tui projects rename shop storefront"},
	{path: "projects pin", synopsis: "PROJECT", summary: "keep a project at the top of the list", args: []argKind{argProject}, example: "pi-tui projects pin shop"},
	{path: "projects unpin", synopsis: "PROJECT", summary: "undo pin", args: []argKind{argProject}, example: "pi-tui projects unpin shop"},
	{path: "projects archive", synopsis: "PROJECT", summary: "hide a project from the list (list --all shows it)", args: []argKind{argProject}, example: "pi-tui projects archive shop"},
	{path: "projects restore", synopsis: "PROJECT", summary: "bring an archived project back", args: []argKind{argProject}, example: "pi-tui projects restore shop"},
	{path: "projects trust", synopsis: "PROJECT", summary: "trust a project (in pi's trust.json)", args: []argKind{argProject}, example: "pi-tui projects trust shop"},
	{path: "projects untrust", synopsis: "PROJECT", summary: "stop trusting a project: only root instructions load", args: []argKind{argProject}, example: "pi-tui projects untrust shop"},
	{path: "projects remove", synopsis: "PROJECT", summary: "unregister a project with its sessions and memory; the folder is not touched", args: []argKind{argProject},
		example: "pi-tui projects remove shop"},
	{path: "projects group", synopsis: "NAME PROJECT... | --none PROJECT...", summary: "put projects in the group NAME (made by naming it)",
		flags: []flagDoc{{"none", "", "take the projects out of their group instead"}}, args: []argKind{argProject},
		example: "pi-tui projects group work shop api"},
	{path: "projects ungroup", synopsis: "PROJECT...", summary: "take projects out of their group (group --none)", args: []argKind{argProject},
		example: "pi-tui projects ungroup shop"},
	{path: "projects relocate", synopsis: "PROJECT NEWPATH", summary: "a project whose folder moved: its sessions, memory, trust, group and pin follow it",
		more:  "Only a project whose folder is missing; NEWPATH must not be another project's folder.\n/ or the home folder (or one holding pi's or pi-tui's data) needs --allow-broad-root.",
		flags: []flagDoc{{"allow-broad-root", "", "allow / or the home folder without asking"}},
		args:  []argKind{argProject, argPath}, example: "pi-tui projects relocate shop ~/code/shop"},
	{path: "projects folders", synopsis: "PROJECT [--json]", summary: "list a project's folders, the primary root first",
		more:  "A project may span several folders (docs/folders.md); the first, its primary root, is where its\nsessions run and its memory lives.",
		flags: []flagDoc{flagJSON}, args: []argKind{argProject}, example: "pi-tui projects folders shop --json"},
	{path: "projects folders add", synopsis: "PROJECT PATH [--name N] [--trust] [--allow-broad-root]", summary: "add a folder to a project, after its others",
		more: "Refused: a folder of any project already, one inside or around another folder of the project.\n" +
			"/ or the home folder (or one holding pi's or pi-tui's data) is asked about on a terminal, else needs\n--allow-broad-root. A link is followed: the folder is where it leads.",
		flags: []flagDoc{{"name", "N", "the folder's name, written name:path in @ completion (default: its base name)"},
			{"trust", "", "trust the folder (pi's trust.json): its instructions are delivered"},
			{"allow-broad-root", "", "allow / or the home folder without asking"}},
		args: []argKind{argProject, argPath}, example: "pi-tui projects folders add shop ~/src/shop-web --name web --trust"},
	{path: "projects folders remove", synopsis: "PROJECT FOLDER [--force]", summary: "take a folder out of a project (FOLDER: its path or name); the folder on disk is not touched",
		more:  "The primary root cannot be removed. A folder sessions worked in is refused, naming them, unless\n--force: the sessions stay with the project, and their agents can no longer reach the folder.",
		flags: []flagDoc{{"force", "", "remove it even though sessions worked in it"}},
		args:  []argKind{argProject, argPath}, example: "pi-tui projects folders remove shop web"},
	{path: "projects folders trust", synopsis: "PROJECT FOLDER", summary: "trust one folder of a project (in pi's trust.json)",
		args: []argKind{argProject, argPath}, example: "pi-tui projects folders trust shop web"},
	{path: "projects folders untrust", synopsis: "PROJECT FOLDER", summary: "stop trusting one folder: its instructions are no longer delivered",
		args: []argKind{argProject, argPath}, example: "pi-tui projects folders untrust shop web"},
	{path: "projects folders relocate", synopsis: "PROJECT FOLDER NEWPATH [--allow-broad-root]", summary: "a folder that moved: it takes NEWPATH, keeping its name, place and trust",
		more:  "Only a folder that is missing, and not the primary root (projects relocate moves that).",
		flags: []flagDoc{{"allow-broad-root", "", "allow / or the home folder without asking"}},
		args:  []argKind{argProject, argPath, argPath}, example: "pi-tui projects folders relocate shop web ~/code/shop-web"},
	{path: "memory show", synopsis: "[--json] PROJECT", summary: "print a project's memory exactly as an agent is given it",
		flags: []flagDoc{{"json", "", "print the entries-v1 JSON document instead"}}, args: []argKind{argProject}, example: "pi-tui memory show shop > memory.txt"},
	{path: "memory set", synopsis: "PROJECT --file F", summary: "replace a project's memory",
		more:  "F is entries-v1 JSON, a JSON array of entries, or plain text, saved as one untitled entry; - reads standard input.",
		flags: []flagDoc{{"file", "F", "the file to read; - for standard input"}}, args: []argKind{argProject},
		example: "pi-tui memory set shop --file notes.md"},
	{path: "memory agent-writes", synopsis: "PROJECT [on|off]", summary: "show, or turn on or off, whether the agent may change memory",
		more: "The agent changes entries through its remember tool; off by default, and untrusted projects\n" +
			"never get the tool. Each change shows in the session with an undo (/undo-memory).",
		args: []argKind{argProject}, example: "pi-tui memory agent-writes shop on"},
	{path: "instructions", synopsis: "[--project P | --root DIR | --session ID] [--model PROVIDER/ID] [--json] [TARGET]",
		summary: "show the instruction chain a runtime gets",
		more: "For the project root, or for TARGET (absolute, or relative to the root; need not exist yet).\n" +
			"--session: the chain that session's runtime gets, from its worktree when it has one.\n" +
			"Without --model: the model a prompt would run (a line names it and why), with its provider files.",
		flags: []flagDoc{flagProject, {"root", "DIR", "a folder instead of a registered project"},
			{"session", "ID", "the root of this session: its worktree, or its project's root"}, flagModel, flagJSON},
		args: []argKind{argPath}, example: "pi-tui instructions --project shop src/api/handler.go"},
	{path: "prompt", synopsis: "[--project P] [--model PROVIDER/ID] [--thinking LEVEL] [--session ID|--continue|--worktree [--base BRANCH]] [--engine E] [--json] [--yes] [--plan] TEXT",
		summary: "run one prompt headless and print the answer",
		more: "TEXT - reads standard input. Tool calls that need approval are denied unless --yes;\n" +
			"when any was denied the exit status is 3. --worktree starts the session in a git worktree of\n" +
			"its own (branch pi/<id>), to merge or discard later with pi-tui sessions merge|discard.",
		flags: []flagDoc{flagProject, flagModel, flagEngine,
			{"thinking", "LEVEL", "thinking level: off, minimal, low, medium, high, xhigh"},
			{"session", "ID", "continue this session of the project (its id or a prefix; with --project, of that project's)"},
			{"continue", "", "continue the project's latest session"},
			{"json", "", "print the event stream as JSON lines instead of the answer"},
			{"yes", "", "approve every tool call (writes, edits, commands)"},
			{"worktree", "", "start a new session in a git worktree of its own, on a new branch pi/<id>"},
			{"base", "BRANCH", "with --worktree: the branch it starts from and merges into; default: the checked-out one"},
			{"plan", "", "plan mode: only read, grep, find, ls run (even with --yes); prints a plan, changes nothing"}},
		example: `pi-tui prompt --project shop --continue "run the tests and fix what fails"`},
	{path: "rpc", synopsis: "[--project P] [--model PROVIDER/ID] [--engine E]", summary: "JSON lines on standard input and output (pi's RPC mode)",
		more:  "With the pi engine, pi's own commands (get_available_models, get_commands, get_session_stats, …) are passed to pi.",
		flags: []flagDoc{flagProject, flagModel, flagEngine}, example: `echo '{"id":"1","type":"prompt","message":"hi"}' | pi-tui rpc --project shop`},
	{path: "sessions list", synopsis: "PROJECT [--json]", summary: "list a project's sessions",
		more:  "Worktree sessions show their branch, * for uncommitted changes, and the diff stat against their base.",
		flags: []flagDoc{flagJSON}, args: []argKind{argProject}, example: "pi-tui sessions list shop --json"},
	{path: "sessions changes", synopsis: "ID [--project P] [--json]", summary: "list the file changes a session's tool calls made, in order",
		more: "ID is the session's id, or a prefix of it no other session's id starts with (with --project, no\n" +
			"other of that project's); an ID several sessions start with is refused, listing them (exit 2).\n" +
			"Each change: its number N, its state (active, undone, or parent: made before the session was\n" +
			"forked, shown but not undone here), A, M or D, the path, +added −removed lines, and the tool and\n" +
			"entry that made it.",
		flags: []flagDoc{flagScope, flagJSON}, example: "pi-tui sessions changes 019a2b3c --json"},
	{path: "sessions undo", synopsis: "ID (--change N | --to ENTRY) [--redo] [--force] [--project P]", summary: "undo one change, or every change from a message on",
		more: "Guarded: when a file is no longer as the agent left it, nothing is written and the files are named;\n" +
			"--force overwrites them. --to rewinds every file to how it was before ENTRY (a message's id, as\n" +
			"sessions changes shows it). An undone change can be redone with --redo.",
		flags: []flagDoc{{"change", "N", "the change to undo (its number in sessions changes)"},
			{"to", "ENTRY", "undo every change made by this entry and the entries after it"},
			{"redo", "", "redo what was undone instead"},
			{"force", "", "write even over files that changed since"}, flagScope},
		example: "pi-tui sessions undo 019a2b3c --change 3"},
	{path: "sessions merge", synopsis: "ID [--message M] [--project P]", summary: "merge a worktree session's branch into its base branch",
		more: "ID is the session's id, or its branch as the list shows it (pi/00f08c66) or the branch's short id.\n" +
			"Uncommitted changes in the worktree are committed first (with M; default: the session's name,\n" +
			"else its first message's first line).\n" +
			"A fast-forward when the base has not moved, else a merge commit. A conflict stops the merge\n" +
			"with the files named and the main checkout as it was.",
		flags:   []flagDoc{{"message", "M", "the commit message for uncommitted changes"}, flagScope},
		example: `pi-tui sessions merge 019a2b3c-… --message "Fix the flaky test"`},
	{path: "sessions discard", synopsis: "ID [--yes] [--project P]", summary: "remove a worktree session's worktree and delete its branch",
		more:    "ID as for sessions merge. Asks first on a terminal, naming uncommitted changes; otherwise needs --yes. The session stays.",
		flags:   []flagDoc{{"yes", "", "discard without asking"}, flagScope},
		example: "pi-tui sessions discard 019a2b3c-… --yes"},
	{path: "sessions import", synopsis: "[--from claude|codex|opencode|all] [--project P] [--dry-run] [--json]",
		summary: "bring Claude Code, Codex and opencode sessions into pi's session files",
		more: "Reads ~/.claude/projects, ~/.codex/sessions and opencode's database (or storage/ folder), never\n" +
			"writing to them, and writes each session run in a registered project's folder as a pi session\n" +
			"of that project, which pi and pi-tui open and continue. Importing again adds only what is new.\n" +
			"Sessions of other folders are listed with the command that adds the folder. A line, file or\n" +
			"database that cannot be read is named on stderr and skipped (exit status 1); the rest is imported.",
		flags: []flagDoc{{"from", "SOURCE", "claude, codex, opencode, or all (the default)"},
			{"project", "P", "import only the sessions of this project"},
			{"dry-run", "", "say what would be imported; write nothing"}, flagJSON},
		example: "pi-tui sessions import --from claude --dry-run"},
	{path: "sessions export", synopsis: "ID [--format html|md|jsonl] [-o FILE] [--all-branches] [--project P]",
		summary: "write a session to share: a self-contained HTML page, Markdown, or pi's JSONL",
		more: "HTML (the default) needs nothing else to open: no script, nothing fetched; tool calls are folded,\n" +
			"with the file changes they made. Without -o the export goes to standard output; with -o and no\n" +
			"--format the file's extension (.html, .md, .jsonl) decides. The branch shown is exported, or every\n" +
			"branch with --all-branches. On standard output control and bidirectional characters are shown as\n" +
			"escapes (JSON keeps its values); -o FILE gets the bytes.",
		flags: []flagDoc{{"format", "F", "html, md or jsonl"}, {"o", "FILE", "the file to write; - for standard output"},
			{"all-branches", "", "every branch of the session, not only the one shown"}, flagScope},
		example: "pi-tui sessions export 019a2b3c -o session.html"},
	{path: "providers", synopsis: "[--json]", summary: "list every provider pi and pi-tui know: ready or not, by what, its models and engines",
		more: "Ready by an environment variable, models.json's apiKey, a key or an account login in pi's\n" +
			"auth.json (with when its token expires), or as pi reports it. Reading refreshes nothing\n" +
			"and prints no secret. An account login needs the pi engine: the built-in engine cannot use it.\n" +
			"A provider a pi extension registers is listed once it has a credential (pi auth loads no\n" +
			"extensions): pi-tui login NAME reaches it through pi's /login.",
		flags: []flagDoc{flagJSON}, example: "pi-tui providers --json"},
	{path: "providers add", synopsis: "NAME --base-url URL [--api-key-env VAR] [--api API] [--model ID]... [--yes]",
		summary: "add an OpenAI-compatible endpoint to models.json, with the models it lists",
		more: "Asks URL's GET /v1/models first (15 s, 8 MiB at most) and adds nothing when the endpoint does\n" +
			"not answer, answers something else, or lists more than 500 models (name some with --model).\n" +
			"Only the new provider is written: every other byte of models.json stays. Asks first on a terminal.",
		flags: []flagDoc{{"base-url", "URL", "the endpoint, e.g. http://localhost:11434 (…/v1 is found)"},
			{"api-key-env", "VAR", "the variable holding its key (written as $VAR); default: none, store one with pi-tui login NAME --api-key"},
			{"api", "API", "openai-completions (default), openai-responses, anthropic-messages or google-generative-ai"},
			{"model", "ID", "add only this listed model (repeatable)"},
			{"yes", "", "add without asking"}},
		example: "pi-tui providers add lab --base-url http://gpu-box:8000 --api-key-env LAB_KEY"},
	{path: "login", synopsis: "[PROVIDER] [--api-key] [--no-browser|--browser]", summary: "log in to a provider with pi's own login, in this terminal",
		more: "Runs pi auth login: pi signs in with an account or reads an API key without echoing it, and\n" +
			"stores it in its auth.json, where pi and pi-tui both find it. Without PROVIDER, asks which.\n" +
			"Over SSH --no-browser is the default (a device code or a pasted redirect URL). A provider a\n" +
			"pi extension registers is logged in to inside pi (/login), which opens when asked.",
		flags: []flagDoc{{"api-key", "", "store an API key instead of signing in with an account"},
			{"no-browser", "", "do not open a browser: a device code or a pasted redirect URL"},
			{"browser", "", "open a browser even over SSH"}},
		example: "pi-tui login anthropic"},
	{path: "logout", synopsis: "PROVIDER", summary: "remove the login or key pi stored for a provider (pi auth logout)",
		example: "pi-tui logout anthropic"},
	{path: "mcp list", synopsis: "[--project P] [--json]", summary: "list pi's MCP servers: state, tools, scope",
		more:  "With --project, the project's .pi/mcp.json too when the project is trusted (pi ignores it otherwise).",
		flags: []flagDoc{{"project", "P", "also the servers of this project"}, flagJSON}, example: "pi-tui mcp list --project shop"},
	{path: "mcp add", synopsis: "NAME [--project P] (--url URL [--bearer-env VAR] | [--env K=V]... -- COMMAND [ARGS...])",
		summary: "add a stdio or streamable HTTP MCP server (pi mcp add)",
		flags: []flagDoc{{"project", "P", "add it to this trusted project's .pi/mcp.json instead of the global file"},
			{"url", "URL", "a streamable HTTP server"}, {"bearer-env", "VAR", "send Authorization: Bearer $VAR"},
			{"env", "K=V", "an environment variable of a stdio server (repeatable)"}},
		example: "pi-tui mcp add files -- npx -y @modelcontextprotocol/server-filesystem ."},
	{path: "mcp remove", synopsis: "NAME [--project P]", summary: "remove an MCP server (pi mcp remove); its sign-in is kept",
		flags: []flagDoc{{"project", "P", "from this trusted project's .pi/mcp.json"}}, example: "pi-tui mcp remove files"},
	{path: "mcp login", synopsis: "NAME [--project P]", summary: "sign in to an OAuth MCP server, in this terminal (pi mcp login)",
		flags: []flagDoc{{"project", "P", "a server of this trusted project"}}, example: "pi-tui mcp login sentry"},
	{path: "mcp logout", synopsis: "NAME [--project P]", summary: "delete an MCP server's stored sign-in (pi mcp logout)",
		flags: []flagDoc{{"project", "P", "a server of this trusted project"}}, example: "pi-tui mcp logout sentry"},
	{path: "mcp enable", synopsis: "NAME [--project P]", summary: "turn an MCP server on in the mcp.json that defines it",
		more:  "With --project, in the trusted project's .pi/mcp.json (for a global server: an override there).",
		flags: []flagDoc{{"project", "P", "in this trusted project only"}}, example: "pi-tui mcp enable files"},
	{path: "mcp disable", synopsis: "NAME [--project P]", summary: "turn an MCP server off, keeping its entry",
		more:  "With --project, in the trusted project's .pi/mcp.json (for a global server: an override there).",
		flags: []flagDoc{{"project", "P", "in this trusted project only"}}, example: "pi-tui mcp disable files --project shop"},
	{path: "serve", synopsis: "[--listen ADDR] [--authorized-keys FILE] [--host-key FILE]", summary: "serve the terminal UI over SSH",
		flags: []flagDoc{{"listen", "ADDR", "address to listen on; default 127.0.0.1:23234"},
			{"authorized-keys", "FILE", "public keys allowed in; default ~/.ssh/authorized_keys"},
			{"host-key", "FILE", "the server's key; default one made in the data dir"}},
		example: "pi-tui serve --listen 127.0.0.1:2222"},
	{path: "completion", synopsis: "bash|zsh|fish", summary: "print a shell completion script",
		more:    "Completes commands, flags, project names and session ids.",
		example: "pi-tui completion bash > ~/.local/share/bash-completion/completions/pi-tui"},
	{path: "help", synopsis: "[COMMAND]", summary: "this help, or a command's (e.g. pi-tui help projects)", example: "pi-tui help memory set"},
}

// lookup returns the command at path.
func lookup(path string) (command, bool) {
	for _, c := range commands {
		if c.path == path {
			return c, true
		}
	}
	return command{}, false
}

// topics returns the commands at path or below it ("projects").
func topics(path string) []command {
	var out []command
	for _, c := range commands {
		if c.path == path || strings.HasPrefix(c.path, path+" ") {
			out = append(out, c)
		}
	}
	return out
}

const exitStatusHelp = `Exit status: 0 success; 1 failure (one line on stderr); 2 bad usage;
3 prompt finished but tool calls needing approval were denied (see --yes).`

// writeHelp writes the overview.
func writeHelp(w io.Writer) {
	writeText(w, "pi-tui: a terminal home for the pi coding agent\n\nUsage:\n"+
		"  pi-tui [-c] [PATH]    open the terminal UI: on PATH's project, or the one holding\n"+
		"                        the working directory; -c continues its latest session\n")
	for _, c := range commands {
		say(w, "  pi-tui %s %s\n", c.path, c.synopsis)
		say(w, "      %s\n", c.summary)
	}
	writeText(w, "\nPROJECT is a registered project's id, path or name. pi-tui help COMMAND says more.\n\nGlobal flags (anywhere on the line):\n")
	writeFlags(w, globalFlags)
	writeText(w, "  -v, --version  print the version and commit\n\n"+exitStatusHelp+"\n")
}

// writeFlags writes one line a flag.
func writeFlags(w io.Writer, flags []flagDoc) {
	for _, f := range flags {
		name := "--" + f.name
		if len(f.name) == 1 {
			name = "-" + f.name
		}
		if f.value != "" {
			name += " " + f.value
		}
		say(w, "  %-24s %s\n", name, f.help)
	}
}

// writeCommandHelp writes one command's help: usage, what it does, its
// flags and an example.
func writeCommandHelp(w io.Writer, c command) {
	say(w, "Usage: pi-tui %s %s\n\n%s.\n", c.path, c.synopsis, upperFirst(c.summary))
	if c.more != "" {
		writeText(w, c.more+"\n")
	}
	if len(c.flags) > 0 {
		writeText(w, "\nFlags:\n")
		writeFlags(w, c.flags)
	}
	say(w, "\nExample:\n  %s\n", c.example)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// helpCmd is `pi-tui help [COMMAND…]`.
func (a *app) helpCmd(args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		args = []string{"help"} // help's own help, as for any command
	}
	path := strings.Join(args, " ")
	if path == "" {
		writeHelp(a.stdout)
		return nil
	}
	if c, ok := lookup(path); ok {
		writeCommandHelp(a.stdout, c)
		return nil
	}
	list := topics(path)
	if len(list) == 0 {
		return usagef("help: no command %q", path)
	}
	for i, c := range list {
		if i > 0 {
			writeText(a.stdout, "\n")
		}
		writeCommandHelp(a.stdout, c)
	}
	return nil
}

// helpFor prints the help of the command whose flags were made last (it
// asked for it with -h or --help), or of the commands under topic.
func (a *app) helpFor(topic string) error {
	path := strings.TrimPrefix(topic, "pi-tui ")
	if a.lastFlags != nil {
		path = a.lastFlags.Name()
	}
	if c, ok := lookup(path); ok {
		writeCommandHelp(a.stdout, c)
		return nil
	}
	return a.helpCmd(strings.Fields(path))
}

// checkFlags reports a difference between the flags a command parses and
// the ones its table row documents: a programming error that every test
// of the command catches.
func checkFlags(fs *flag.FlagSet) error {
	c, ok := lookup(fs.Name())
	if !ok {
		return nil // a command without a row (yet) has no documented flags to check
	}
	documented := map[string]bool{"data-dir": true, "agent-dir": true}
	for _, f := range c.flags {
		documented[f.name] = true
	}
	var missing []string
	fs.VisitAll(func(f *flag.Flag) {
		if !documented[f.Name] {
			missing = append(missing, "--"+f.Name)
		}
		delete(documented, f.Name)
	})
	for name := range documented {
		missing = append(missing, "--"+name)
	}
	if len(missing) > 0 {
		return fmt.Errorf("internal error: the help of %q and its flags differ (%s)", fs.Name(), strings.Join(missing, ", "))
	}
	return nil
}

// versionLine is what --version prints: the module version and the commit
// the binary was built from, as the Go toolchain recorded them.
func versionLine() string {
	version, commit, modified := "(devel)", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if commit == "" {
		return "pi-tui " + version + " (commit unknown: built without version control information)"
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if modified {
		commit += " with uncommitted changes"
	}
	return "pi-tui " + version + " (commit " + commit + ")"
}
