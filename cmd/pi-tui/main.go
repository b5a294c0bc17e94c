// Command pi-tui is a terminal home for the pi coding agent: a project
// registry with instructions and memory, driven from a terminal UI or from
// scripts. This file only wires flags and subcommands to the core packages.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
