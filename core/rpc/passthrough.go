package rpc

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Passing pi's own commands through: with the pi engine, a command pi-tui
// does not know (get_available_models, get_commands, get_session_stats,
// export_html, get_messages, …) goes to the session's pi as the client
// wrote it, and pi's answer comes back in pi-tui's response shape. A few
// are kept from pi because they would go around what pi-tui owns.

// passed are pi's commands rpc passes through: the ones that only read.
// Any other (those pi has now and those a later 1.x adds) is refused, so
// that nothing a client sends runs a command, writes a file or changes
// what pi-tui owns (the model, the queue, the session file) around
// pi-tui's approvals.
var passed = map[string]bool{
	"get_messages": true, "get_available_models": true, "get_available_thinking_levels": true,
	"get_commands": true, "get_session_stats": true, "get_entries": true, "get_tree": true,
	"get_fork_messages": true, "get_last_assistant_text": true, "export_html": true,
}

// refusedWhy says why a pi command is not passed, for the ones a client
// is likely to try.
var refusedWhy = map[string]string{
	"bash":           "it would run a command outside pi-tui's approvals; ask the agent in a prompt",
	"switch_session": "pi would write another session file than pi-tui's; use new_session",
	"fork":           "pi would write another session file than pi-tui's; use branch or pi-tui's fork",
	"clone":          "pi would write another session file than pi-tui's",
	"cycle_model":    "pi-tui chooses the runtime's model; use set_model",
	"steer":          "pi-tui's prompt queue owns the runtime's turns",
	"follow_up":      "pi-tui's prompt queue owns the runtime's turns",
}

// notPassedWhy is the error for a pi command rpc does not pass.
func notPassedWhy(cmd string) error {
	if why, ok := refusedWhy[cmd]; ok {
		return fmt.Errorf("%s is not passed to pi: %s", cmd, why)
	}
	if cmd == "export_html" {
		return errors.New(`export_html with "outputPath" is not passed to pi: pi would write the file wherever it names, outside pi-tui's confinement; leave it out for pi's own default place`)
	}
	return fmt.Errorf("%s is not passed to pi: rpc passes only pi's commands that read (get_messages, get_available_models, get_commands, get_session_stats, export_html, …)", cmd)
}

// maxPassing bounds the pass-through commands waiting on pi at once, so
// a client flooding them cannot pile up goroutines.
const maxPassing = 16

func (r *server) passThrough(c command) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(c.raw, &fields); err != nil {
		r.reply(c, fmt.Errorf("invalid command: %v", err), nil)
		return
	}
	if _, out := fields["outputPath"]; !passed[c.Type] || (c.Type == "export_html" && out) {
		r.reply(c, notPassedWhy(c.Type), nil)
		return
	}
	delete(fields, "id")
	delete(fields, "type")
	var params json.RawMessage
	if len(fields) > 0 {
		params, _ = json.Marshal(fields)
	}
	select {
	case r.passing <- struct{}{}:
	default:
		r.reply(c, fmt.Errorf("%d of pi's commands are waiting on pi already; send %s again once they are answered", maxPassing, c.Type), nil)
		return
	}
	sessionID := r.session
	r.passed.Add(1)
	go func() {
		defer r.passed.Done()
		defer func() { <-r.passing }()
		data, err := r.m.Call(r.ctx, sessionID, c.Type, params)
		if err != nil {
			r.reply(c, err, nil)
			return
		}
		if len(data) == 0 {
			r.reply(c, nil, nil)
			return
		}
		r.reply(c, nil, data)
	}()
}
