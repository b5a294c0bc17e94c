package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/projects"
	"github.com/pi-tui/pi-tui/store"

	"github.com/pi-tui/pi-tui/internal/safetext"
)

const helpText = `pi-tui: a terminal home for the pi coding agent

Usage:
  pi-tui [--data-dir D] [--agent-dir A]                 open the terminal UI
  pi-tui projects list [--all] [--json]
  pi-tui projects add PATH [--name NAME] [--trust] [--allow-broad-root]
                                                        / or the home folder: asks first, or
                                                        needs --allow-broad-root
  pi-tui projects rename PROJECT NAME
  pi-tui projects pin|unpin|archive|restore|trust|untrust|remove PROJECT
  pi-tui memory show [--json] PROJECT
  pi-tui memory set PROJECT --file F                    F: entries-v1 JSON, a JSON array of entries,
                                                        or plain text; - reads standard input
  pi-tui instructions [--project P | --root DIR] [--model PROVIDER/ID] [--json] [TARGET]
                                                        the instruction chain a runtime gets for the
                                                        project root, or for TARGET (absolute, or
                                                        relative to the root; need not exist yet)
  pi-tui prompt [--project P] [--model PROVIDER/ID] [--thinking LEVEL] [--session ID|--continue] [--json] [--yes] TEXT
                                                        run one prompt headless; prints the answer
                                                        (--json: the event stream); TEXT - reads stdin;
                                                        LEVEL: off, minimal, low, medium, high, xhigh
  pi-tui rpc [--project P] [--model PROVIDER/ID]        JSON lines on stdin/stdout
  pi-tui sessions list PROJECT [--json]
  pi-tui serve [--listen 127.0.0.1:23234] [--authorized-keys FILE] [--host-key FILE]   the UI over SSH
  pi-tui help

PROJECT is a registered project's id, path or name. Without --project or --root,
instructions uses the registered project holding the working directory.

Global flags (anywhere on the line):
  --data-dir D    pi-tui's data (database, logs); default $PI_TUI_DATA_DIR,
                  else $XDG_DATA_HOME/pi-tui, else ~/.local/share/pi-tui
  --agent-dir A   pi's agent dir (AGENTS.md, models.json, auth.json, settings.json);
                  default $PI_CODING_AGENT_DIR, else ~/.pi/agent

Exit status: 0 success, 1 failure (one line on stderr), 2 bad usage.
`

// usageError marks a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// app carries what one invocation needs. Nothing here is global: tests run
// many invocations side by side.
type app struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	env    paths.Env

	agentDir string // flag values
	dataDir  string

	st *store.Store
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env paths.Env) int {
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, env: env}
	defer a.close()
	err := a.dispatch(args)
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "pi-tui: %s (see pi-tui help)\n", oneLine(err.Error()))
		return 2
	}
	fmt.Fprintf(stderr, "pi-tui: %s\n", oneLine(err.Error()))
	return 1
}

// oneLine folds an error onto one line with its control characters shown
// as text: errors can carry a server's or a file's words.
func oneLine(s string) string {
	return safetext.Visible(strings.Join(strings.Fields(s), " "))
}

func (a *app) close() {
	if a.st != nil {
		a.st.Close()
	}
}

// flags returns a FlagSet for a subcommand with the global flags on it.
func (a *app) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var((*dirFlag)(&a.dataDir), "data-dir", "data dir")
	fs.Var((*dirFlag)(&a.agentDir), "agent-dir", "agent dir")
	return fs
}

// dirFlag is a directory flag that may not be given empty: `--data-dir=`
// from a script with an unset variable must not fall back to the default.
type dirFlag string

func (d *dirFlag) String() string { return string(*d) }
func (d *dirFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("is empty")
	}
	*d = dirFlag(v)
	return nil
}

// parse parses flags that may stand before, between or after positional
// arguments, as in `memory set PROJECT --file F`. "--" ends the flags.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos, rest []string
	for i, arg := range args {
		if arg == "--" {
			rest = args[i+1:]
			args = args[:i]
			break
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%s: %s", fs.Name(), flagError(err))
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, rest...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagError rewrites the flag package's messages, which name flags with
// one dash, in the two-dash form the help uses.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + name
	}
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		return "invalid value " + strings.Replace(rest, "for flag -", "for flag --", 1)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "flag --" + name + " needs a value"
	}
	return msg
}

func (a *app) dispatch(args []string) error {
	fs := a.flags("pi-tui")
	help := fs.Bool("help", false, "")
	fs.BoolVar(help, "h", false, "")
	// Global flags before the subcommand.
	if err := fs.Parse(args); err != nil {
		return usagef("%s", flagError(err))
	}
	args = fs.Args()
	if *help {
		fmt.Fprint(a.stdout, helpText)
		return nil
	}
	if len(args) == 0 {
		return a.tui()
	}
	switch args[0] {
	case "help":
		fmt.Fprint(a.stdout, helpText)
		return nil
	case "projects":
		return a.projects(args[1:])
	case "memory":
		return a.memory(args[1:])
	case "instructions":
		return a.instructionsCmd(args[1:])
	case "prompt":
		return a.promptCmd(args[1:])
	case "rpc":
		return a.rpcCmd(args[1:])
	case "sessions":
		return a.sessionsCmd(args[1:])
	case "serve":
		return a.serveCmd(args[1:])
	}
	return usagef("unknown command %q", args[0])
}

// placesOrEmpty is places() for callers that only need a best effort.
func (a *app) placesOrEmpty() paths.Places {
	pl, _ := a.places()
	return pl
}

func (a *app) places() (paths.Places, error) {
	return paths.Resolve(a.agentDir, a.dataDir, a.env)
}

// open opens the store for commands that need it.
func (a *app) open() (*store.Store, error) {
	if a.st != nil {
		return a.st, nil
	}
	pl, err := a.places()
	if err != nil {
		return nil, err
	}
	st, err := store.Open(a.ctx, pl.Database(), store.Options{})
	if err != nil {
		return nil, err
	}
	a.st = st
	return st, nil
}

func (a *app) registry() (*projects.Registry, error) {
	st, err := a.open()
	if err != nil {
		return nil, err
	}
	pl, err := a.places()
	if err != nil {
		return nil, err
	}
	return projects.NewRegistry(st, pl.AgentDir), nil
}

func (a *app) memoryService() (*memory.Service, error) {
	st, err := a.open()
	if err != nil {
		return nil, err
	}
	return memory.NewService(st), nil
}

// helpFor prints a subcommand's usage lines when asked with -h.
func (a *app) helpFor(prefix string) error {
	for _, line := range strings.Split(helpText, "\n") {
		if strings.Contains(line, prefix) {
			fmt.Fprintln(a.stdout, strings.TrimSpace(line))
		}
	}
	return nil
}
