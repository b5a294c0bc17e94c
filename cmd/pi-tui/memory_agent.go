package main

import (
	"errors"
	"flag"
)

// memoryAgentWrites shows or sets a project's agent-writes switch.
func (a *app) memoryAgentWrites(args []string) error {
	fs := a.flags("memory agent-writes")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("memory agent-writes")
	}
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef("memory agent-writes needs PROJECT and, to change it, on or off")
	}
	var set, on bool
	if len(pos) == 2 {
		switch pos[1] {
		case "on":
			set, on = true, true
		case "off":
			set = true
		default:
			return usagef("memory agent-writes: %q is neither on nor off", pos[1])
		}
	}
	_, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	svc, err := a.memoryService()
	if err != nil {
		return err
	}
	if set {
		if err := svc.SetAgentWrites(a.ctx, p.ID, on); err != nil {
			return err
		}
	}
	if on, err = svc.AgentWrites(a.ctx, p.ID); err != nil {
		return err
	}
	state := "off"
	if on {
		state = "on"
	}
	say(a.stdout, "agent writes to the memory of %s: %s\n", p.Name, state)
	if on && !p.Trusted {
		say(a.stderr, "pi-tui: %s is not trusted, so its agent gets no remember tool until you trust it\n", p.Name)
	}
	return nil
}
