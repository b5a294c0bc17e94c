package main

import (
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/pi-tui/pi-tui/core/providers"
)

// `pi-tui mcp …`: pi's MCP servers, through pi's own `pi mcp` commands
// (ADR 0072). A project's servers (.pi/mcp.json) are pi's only for a
// trusted project, so pi-tui changes them only for one.

func (a *app) mcpCmd(args []string) error {
	if len(args) == 0 {
		return usagef("mcp: name a subcommand: list, add, remove, login, logout, enable, disable")
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "list":
		return a.mcpList(args)
	case "add":
		return a.mcpAdd(args)
	case "remove", "login", "logout", "enable", "disable":
		return a.mcpOne(sub, args)
	case "-h", "--help", "help":
		return a.helpFor("pi-tui mcp")
	}
	return usagef("mcp: unknown subcommand %q", sub)
}

// mcpPi is pi to run for --project (in its folder; trusted says whether
// its .pi/mcp.json is pi's), or for the global servers alone.
func (a *app) mcpPi(project string) (pi *providers.Pi, root string, trusted bool, err error) {
	pi, problem, err := a.piForProviders()
	if err != nil {
		return nil, "", false, err
	}
	if pi == nil {
		return nil, "", false, codeErrorf(1, "MCP servers are pi's, and pi-tui runs pi for them: %s", problem)
	}
	if project != "" {
		_, p, err := a.find(project)
		if err != nil {
			return nil, "", false, err
		}
		pi.Dir, root, trusted = p.Root, p.Root, p.Trusted
	}
	return pi, root, trusted, nil
}

func (a *app) mcpList(args []string) error {
	fs := a.flags("mcp list")
	project := fs.String("project", "", "")
	asJSON := fs.Bool("json", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("mcp list")
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("mcp list takes no arguments, got %q", pos[0])
	}
	pi, _, _, err := a.mcpPi(*project)
	if err != nil {
		return err
	}
	l, err := pi.ListMCP(a.ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, l, false)
	}
	if len(l.Servers) == 0 {
		writeText(a.stdout, "No MCP servers. Add one with: pi-tui mcp add NAME -- COMMAND [ARGS...] (or --url URL)\n")
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	if len(l.Servers) > 0 {
		writeText(tw, "SERVER\tSTATE\tSCOPE\tTOOLS\tTRANSPORT\n")
	}
	for _, s := range l.Servers {
		state := s.State
		if !s.Enabled {
			state = "disabled"
		}
		say(tw, "%s\t%s\t%s\t%d\t%s\n", s.Name, state, s.Scope, len(s.Tools), s.Transport)
	}
	tw.Flush()
	for _, s := range l.Servers {
		if s.Error != "" {
			say(a.stdout, "%s: %s\n", s.Name, oneLine(s.Error))
		}
	}
	for _, e := range l.Errors {
		say(a.stderr, "pi-tui: note: %s\n", oneLine(e))
	}
	if l.Note != "" {
		say(a.stderr, "pi-tui: note: %s\n", oneLine(l.Note))
	}
	return nil
}

func (a *app) mcpAdd(args []string) error {
	fs := a.flags("mcp add")
	project := fs.String("project", "", "")
	url := fs.String("url", "", "")
	bearer := fs.String("bearer-env", "", "")
	var env stringsFlag
	fs.Var(&env, "env", "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("mcp add")
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("mcp add: name the server: pi-tui mcp add NAME -- COMMAND [ARGS...] or --url URL")
	}
	add := providers.MCPAdd{Name: pos[0], URL: *url, BearerEnv: *bearer, Env: env}
	if len(pos) > 1 {
		add.Command, add.Args = pos[1], pos[2:]
	}
	pi, root, trusted, err := a.mcpPi(*project)
	if err != nil {
		return err
	}
	if *project != "" {
		if !trusted {
			return codeErrorf(1, "the project at %s is not trusted, so pi ignores its .pi/mcp.json: trust it first (pi-tui projects trust)", root)
		}
		add.Local = true
	}
	piArgs, err := add.AddArgs()
	if err != nil {
		return usagef("mcp add: %v", err)
	}
	out, err := pi.RunMCP(a.ctx, piArgs...)
	if err != nil {
		return err
	}
	return say(a.stdout, "%s\n", firstSentenceLine(out))
}

// mcpOne is remove, login, logout, enable and disable of one server.
func (a *app) mcpOne(sub string, args []string) error {
	fs := a.flags("mcp " + sub)
	project := fs.String("project", "", "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("mcp " + sub)
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("mcp %s: name one server", sub)
	}
	name := pos[0]
	if err := providers.CheckMCPName(name); err != nil {
		return usagef("mcp %s: %v", sub, err)
	}
	pi, root, trusted, err := a.mcpPi(*project)
	if err != nil {
		return err
	}
	if *project != "" && !trusted {
		return codeErrorf(1, "the project at %s is not trusted, so pi ignores its .pi/mcp.json: trust it first (pi-tui projects trust)", root)
	}
	local := func(args ...string) []string {
		if *project != "" {
			return append(args, "--local")
		}
		return args
	}
	switch sub {
	case "remove":
		out, err := pi.RunMCP(a.ctx, local("mcp", "remove", name)...)
		if err != nil {
			return err
		}
		return say(a.stdout, "%s\n", firstSentenceLine(out))
	case "login", "logout":
		if sub == "login" && !a.interactive() {
			return codeErrorf(1, "mcp login needs a terminal: pi shows the sign-in page's address and takes the pasted redirect there")
		}
		return a.runPi(pi, local("mcp", sub, name)...)
	}
	source := filepath.Join(pi.AgentDir, "mcp.json")
	if *project != "" {
		source = filepath.Join(root, ".pi", "mcp.json")
	}
	if err := providers.SetMCPEnabled(source, name, sub == "enable", *project != ""); err != nil {
		return err
	}
	done := map[string]string{"enable": "Enabled", "disable": "Disabled"}[sub]
	return say(a.stdout, "%s %s in %s; a running session picks it up after /reload or on its next start.\n", done, name, source)
}

// firstSentenceLine is pi's first line of output.
func firstSentenceLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
