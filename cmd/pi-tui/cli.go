package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/runtimes"
)

// usageError marks a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitDenied is the exit status of a headless prompt that finished but
// had tool calls denied for want of approval (--yes): the answer may be
// incomplete, and a script must be able to tell.
const exitDenied = 3

// codeError is a failure with its own exit status (one line on stderr).
type codeError struct {
	code int
	msg  string
}

func (e *codeError) Error() string { return e.msg }

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

	// lastFlags is the FlagSet the running command made: its name says
	// whose help -h asks for.
	lastFlags *flag.FlagSet

	// pl are the places, worked out once (the session folder reads
	// settings.json); plErr is why they could not be.
	pl    *paths.Places
	plErr error
	// h is the host core, opened by the composition root on first use and
	// closed when the invocation ends.
	h *host.Host
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env paths.Env) int {
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, env: env}
	defer a.close()
	err := a.dispatch(args)
	if err == nil {
		return 0
	}
	var ce *codeError
	if errors.As(err, &ce) {
		say(stderr, "pi-tui: %s\n", oneLine(err.Error()))
		return ce.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		say(stderr, "pi-tui: %s (see pi-tui help)\n", oneLine(err.Error()))
		return 2
	}
	if isAmbiguous(err) {
		say(stderr, "pi-tui: %s\n", oneLine(err.Error()))
		return 2
	}
	say(stderr, "pi-tui: %s\n", oneLine(err.Error()))
	return 1
}

// oneLine folds an error's white space, line breaks included, onto one
// line; say then shows the rest of what it holds as text: errors can
// carry a server's or a file's words, and the names of folders.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// close closes the host core, if it was opened: the runtimes first (a
// running turn stores what arrived), then the store. Later calls do
// nothing, so a command may close early and run may close again.
func (a *app) close() {
	if a.h != nil {
		a.h.Close()
		a.h = nil
	}
}

// flags returns a FlagSet for a subcommand with the global flags on it.
func (a *app) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	a.lastFlags = fs
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
				if err := checkFlags(fs); err != nil {
					return nil, err
				}
				return nil, err
			}
			return nil, usagef("%s: %s", fs.Name(), flagError(err))
		}
		args = fs.Args()
		if len(args) == 0 {
			if err := checkFlags(fs); err != nil {
				return nil, err
			}
			if err := emptyValues(fs); err != nil {
				return nil, err
			}
			return append(pos, rest...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// emptyValues refuses a flag given an empty value (`--name ""`, or a
// script's unset variable): it must neither be ignored nor fall back to a
// default the user did not choose.
func emptyValues(fs *flag.FlagSet) error {
	var empty []string
	fs.Visit(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			return
		}
		if strings.TrimSpace(f.Value.String()) == "" {
			empty = append(empty, "--"+f.Name)
		}
	})
	if len(empty) > 0 {
		return usagef("%s: %s is empty", fs.Name(), strings.Join(empty, ", "))
	}
	return nil
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
	version := fs.Bool("version", false, "")
	fs.BoolVar(version, "v", false, "")
	cont := fs.Bool("continue", false, "")
	fs.BoolVar(cont, "c", false, "")
	// Global flags before the subcommand.
	if err := fs.Parse(args); err != nil {
		return usagef("%s", flagError(err))
	}
	a.lastFlags = nil
	args = fs.Args()
	switch {
	case *help:
		writeHelp(a.stdout)
		return nil
	case *version:
		return say(a.stdout, "%s\n", versionLine())
	case len(args) == 0:
		return a.tui(tuiStart{cont: *cont})
	}
	if !*cont {
		switch args[0] {
		case "help":
			return a.helpCmd(args[1:])
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
		case "providers":
			return a.providersCmd(args[1:])
		case "login":
			return a.loginCmd(args[1:])
		case "logout":
			return a.logoutCmd(args[1:])
		case "mcp":
			return a.mcpCmd(args[1:])
		case "completion":
			return a.completionCmd(args[1:])
		case completeCommand:
			return a.completeCmd(args[1:])
		}
	}
	// pi-tui PATH: a folder to open (a word that is not a command and
	// names nothing on disk is a mistyped command; one naming a file is
	// told that PATH must be a folder).
	if !looksLikePath(args[0]) && !exists(args[0]) {
		return usagef("unknown command %q", args[0])
	}
	if err := fs.Parse(args[1:]); err != nil { // pi-tui PATH -c
		return usagef("%s", flagError(err))
	}
	if fs.NArg() > 0 {
		return usagef("the terminal UI opens one folder; %q is one too many", fs.Arg(0))
	}
	return a.tui(tuiStart{path: args[0], cont: *cont})
}

// placesOrEmpty is places() for callers that only need a best effort.
func (a *app) placesOrEmpty() paths.Places {
	pl, _ := a.places()
	return pl
}

// places are the folders in use, worked out once per invocation (after
// the flags are parsed: --agent-dir and --data-dir decide them).
func (a *app) places() (paths.Places, error) {
	if a.pl == nil && a.plErr == nil {
		pl, err := paths.Resolve(a.agentDir, a.dataDir, a.env)
		a.pl, a.plErr = &pl, err
	}
	return *a.pl, a.plErr
}

// openHost opens the host core for commands that need it, once; every
// later call returns the same one.
func (a *app) openHost() (*host.Host, error) {
	if a.h != nil {
		return a.h, nil
	}
	return a.openHostWith(runtimes.Options{})
}

// openHostWith opens the host core with the runtime options of a command
// that runs the agent (prompt's and rpc's event writer and approver). It
// must come before anything else opens the host.
func (a *app) openHostWith(ro runtimes.Options) (*host.Host, error) {
	if a.h != nil {
		return nil, errors.New("internal error: the host core was opened before the command set its runtime options")
	}
	pl, err := a.places()
	if err != nil {
		return nil, err
	}
	h, err := host.Open(a.ctx, pl, host.Options{Env: a.env, Runtime: ro})
	if err != nil {
		return nil, err
	}
	a.h = h
	return h, nil
}

func (a *app) registry() (*registry.Registry, error) {
	h, err := a.openHost()
	if err != nil {
		return nil, err
	}
	return h.Projects, nil
}

func (a *app) memoryService() (*memory.Service, error) {
	h, err := a.openHost()
	if err != nil {
		return nil, err
	}
	return h.Memory, nil
}
