// Command pi-tui is a terminal home for the pi coding agent: a project
// registry with instructions and memory, driven from a terminal UI or from
// scripts. This file only wires flags and subcommands to the core packages.
package main

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// shutdownGrace is how long pi-tui gives the work in progress, after
// SIGINT or SIGTERM, to wind down: the turn is aborted, the processes of a
// running command are killed and the session keeps what arrived. If that
// has not finished by then (something is stuck), pi-tui exits anyway; a
// second signal exits at once.
const shutdownGrace = 3 * time.Second

// serveGrace is the grace for `serve`: it asks every SSH session to end
// (about 3 s + 3 s at most, ADR 0012) and then closes the runtimes (up to
// 5 s), and exiting before that would skip the sessions' clean-up.
const serveGrace = 15 * time.Second

// graceFor is how long the command in args may take to wind down.
func graceFor(args []string) time.Duration {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			if a == "serve" {
				return serveGrace
			}
			break
		}
		if name := strings.TrimLeft(a, "-"); (name == "data-dir" || name == "agent-dir") && !strings.Contains(a, "=") {
			i++ // the flag's value
		}
	}
	return shutdownGrace
}

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv) }()
	var code int
	select {
	case code = <-done:
	case sig := <-sigs:
		cancel()
		select {
		case code = <-done:
		case <-sigs:
			code = signalExit(sig)
		case <-time.After(graceFor(os.Args[1:])):
			say(os.Stderr, "pi-tui: stopped by %v before the work in progress finished winding down\n", sig)
			code = signalExit(sig)
		}
	}
	cancel()
	os.Exit(code)
}

// signalExit is the shell's exit status for a process ended by sig.
func signalExit(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}
