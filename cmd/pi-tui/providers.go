package main

import (
	"errors"
	"flag"
	"net/http"
	"os/exec"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pi-tui/pi-tui/core/piengine"
	"github.com/pi-tui/pi-tui/core/providers"
)

// The providers, login and logout commands: what pi and pi-tui can reach
// and how, and pi's own login and logout run in this terminal.

// piForProviders finds the user's pi for the agent dir in use; nil and
// the reason (with what to install) when there is none.
func (a *app) piForProviders() (*providers.Pi, string, error) {
	pl, err := a.places()
	if err != nil {
		return nil, "", err
	}
	pi, problem := providers.FindPi(a.ctx, piengine.Describe(&piengine.Locator{Getenv: a.env}).Locate, pl.AgentDir)
	return pi, problem, nil
}

// providerState reads every provider (ADR 0071).
func (a *app) providerState() (providers.State, *providers.Pi, error) {
	pl, err := a.places()
	if err != nil {
		return providers.State{}, nil, err
	}
	pi, problem, err := a.piForProviders()
	if err != nil {
		return providers.State{}, nil, err
	}
	st := providers.Read(a.ctx, providers.Options{AgentDir: pl.AgentDir, Getenv: a.env, Pi: pi, PiProblem: problem})
	return st, pi, nil
}

func (a *app) providersCmd(args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "add":
			return a.providersAdd(args[1:])
		case "list":
			args = args[1:]
		case "help":
			return a.helpFor("pi-tui providers")
		}
	}
	fs := a.flags("providers")
	asJSON := fs.Bool("json", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui providers")
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("providers: unknown subcommand %q (add, or none to list)", pos[0])
	}
	st, _, err := a.providerState()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, st, false)
	}
	now := time.Now()
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	writeText(tw, "PROVIDER\tREADY\tBY\tMODELS\tENGINES\tKNOWN TO\n")
	for _, p := range st.Providers {
		ready, by := "no", p.Need
		if p.Ready {
			ready, by = "yes", p.Describe(now)
		}
		say(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", p.Name, ready, by, len(p.Models), p.Engines(), strings.Join(p.Known, ","))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range st.Providers {
		if p.Ready && p.EngineNote != "" && !p.BuiltinEngine {
			say(a.stdout, "%s: %s\n", p.Name, p.EngineNote)
		}
	}
	if st.PiProblem != "" {
		say(a.stderr, "pi-tui: note: pi's own providers are missing: %s\n", st.PiProblem)
	}
	for _, msg := range st.Problems {
		say(a.stderr, "pi-tui: note: %s\n", msg)
	}
	return nil
}

// stringsFlag is a flag that may be given several times.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

func (a *app) providersAdd(args []string) error {
	fs := a.flags("providers add")
	base := fs.String("base-url", "", "")
	keyEnv := fs.String("api-key-env", "", "")
	api := fs.String("api", "openai-completions", "")
	var models stringsFlag
	fs.Var(&models, "model", "")
	yes := fs.Bool("yes", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("providers add")
	}
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usagef("providers add: name the provider once: pi-tui providers add NAME --base-url URL")
	case *base == "":
		return usagef("providers add: --base-url is required")
	case !contains(providers.APIs, *api):
		return usagef("providers add: --api %q is not one of %s", *api, strings.Join(providers.APIs, ", "))
	}
	name := pos[0]
	if err := providers.CheckName(name); err != nil {
		return usagef("providers add: %v", err)
	}
	st, _, err := a.providerState()
	if err != nil {
		return err
	}
	if p, ok := st.Find(name); ok {
		return codeErrorf(1, "a provider %q already exists (known to %s): choose another name", name, strings.Join(p.Known, ", "))
	}
	key := ""
	if *keyEnv != "" {
		if key = a.env(*keyEnv); key == "" {
			return codeErrorf(1, "%s is not set: set it to the endpoint's key, or leave out --api-key-env", *keyEnv)
		}
	}
	probe, err := providers.ProbeEndpoint(a.ctx, &http.Client{Timeout: providers.ProbeTimeout}, *base, key)
	if err != nil {
		return err
	}
	chosen, err := probe.Select(models)
	if err != nil {
		return err
	}
	say(a.stdout, "%s lists %s:", probe.Asked, plural(len(probe.Models), "model", "models"))
	for i, id := range chosen {
		if i == 10 {
			say(a.stdout, " … (%d more)", len(chosen)-10)
			break
		}
		say(a.stdout, " %s", id)
	}
	writeText(a.stdout, "\n")
	if a.interactive() && !*yes {
		say(a.stderr, "Add %s with %s to models.json? [y/N] ", name, plural(len(chosen), "model", "models"))
		line, err := a.readLine()
		if err != nil {
			return err
		}
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			return codeErrorf(1, "nothing was added")
		}
	}
	pl, _ := a.places()
	path, err := providers.AddEndpoint(pl.AgentDir, providers.Endpoint{Name: name, BaseURL: probe.BaseURL, API: *api, KeyEnv: *keyEnv, Models: chosen})
	if err != nil {
		return err
	}
	say(a.stdout, "Added provider %s (%s, %s) to %s.\n", name, probe.BaseURL, plural(len(chosen), "model", "models"), path)
	if *keyEnv == "" {
		say(a.stdout, "pi uses it once it has a key: pi-tui login %s --api-key stores one (any text for a server that takes none).\n", name)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func codeErrorf(code int, format string, args ...any) error {
	var b strings.Builder
	say(&b, format, args...)
	return &codeError{code: code, msg: b.String()}
}

// loginCmd is `pi-tui login [PROVIDER] [--api-key] [--no-browser]`: pi's
// own login, in this terminal (ADR 0071).
func (a *app) loginCmd(args []string) error {
	fs := a.flags("login")
	apiKey := fs.Bool("api-key", false, "")
	noBrowser := fs.Bool("no-browser", false, "")
	browser := fs.Bool("browser", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("login")
	}
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("login: one provider at a time, got %q too", pos[1])
	}
	if *noBrowser && *browser {
		return usagef("login: --browser and --no-browser contradict each other")
	}
	st, pi, err := a.providerState()
	if err != nil {
		return err
	}
	if pi == nil {
		return codeErrorf(1, "logging in needs pi, which pi-tui runs for it: %s", st.PiProblem)
	}
	if !a.interactive() {
		return codeErrorf(1, "login needs a terminal: pi asks for the key or shows the sign-in there")
	}
	name := ""
	if len(pos) == 1 {
		name = pos[0]
	} else {
		if name, err = a.chooseProvider(st); err != nil {
			return err
		}
	}
	nb := !*browser && (*noBrowser || providers.NoBrowserByDefault(a.env))
	plan, err := providers.PlanLogin(st, name, *apiKey, nb, false)
	if err != nil {
		if _, known := st.Find(name); known {
			return err
		}
		// A name pi auth does not know may be one a pi extension
		// registers: pi itself can log in to it.
		say(a.stderr, "%s.\n", err)
		plan, _ = providers.PlanLogin(st, name, *apiKey, nb, true)
	}
	if plan.InPi {
		// Asked, not just said: pi's screen replaces this one.
		say(a.stderr, "%s. Open pi? [y/N] ", plan.Note)
		line, err := a.readLine()
		if err != nil {
			return err
		}
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			return codeErrorf(1, "nothing was done")
		}
	}
	if err := a.runPi(pi, plan.Args...); err != nil {
		return err
	}
	return a.sayProvider(name)
}

// chooseProvider asks which provider to log in to.
func (a *app) chooseProvider(st providers.State) (string, error) {
	var names []string
	for _, p := range st.Providers {
		if p.Login {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return "", codeErrorf(1, "pi lists no provider to log in to")
	}
	for i, n := range names {
		say(a.stderr, "%3d  %s\n", i+1, n)
	}
	say(a.stderr, "Log in to which provider (number or name)? ")
	line, err := a.readLine()
	if err != nil {
		return "", err
	}
	ans := strings.TrimSpace(line)
	for i, n := range names {
		if ans == n || ans == itoa(i+1) {
			return n, nil
		}
	}
	return "", codeErrorf(1, "no provider %q: nothing was done", ans)
}

func itoa(n int) string {
	var b strings.Builder
	say(&b, "%d", n)
	return b.String()
}

// runPi runs pi with args in this terminal and waits; pi's exit status
// becomes pi-tui's, pi having said why.
func (a *app) runPi(pi *providers.Pi, args ...string) error {
	cmd := pi.Command(a.ctx, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.stdin, a.stdout, a.stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &codeError{code: 1, msg: "pi " + strings.Join(args[:min(2, len(args))], " ") + " failed (exit status " + itoa(ee.ExitCode()) + "): see above"}
	}
	return err
}

// sayProvider prints how name is reached now, read afresh.
func (a *app) sayProvider(name string) error {
	st, _, err := a.providerState()
	if err != nil {
		return err
	}
	p, ok := st.Find(name)
	switch {
	case !ok || !p.Ready:
		return say(a.stdout, "%s is not ready.\n", name)
	default:
		return say(a.stdout, "%s is ready: %s; engines: %s.\n", name, p.Describe(time.Now()), p.Engines())
	}
}

// logoutCmd is `pi-tui logout PROVIDER`: pi removes what it stored.
func (a *app) logoutCmd(args []string) error {
	fs := a.flags("logout")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("logout")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("logout: name one provider")
	}
	pi, problem, err := a.piForProviders()
	if err != nil {
		return err
	}
	if pi == nil {
		return codeErrorf(1, "logging out needs pi, which pi-tui runs for it: %s", problem)
	}
	if err := a.runPi(pi, providers.LogoutArgs(pos[0])...); err != nil {
		return err
	}
	return a.sayProvider(pos[0])
}
