package rpc

import (
	"encoding/json"
	"fmt"
)

// Passing pi's own commands through: with the pi engine, a command pi-tui
// does not know (get_available_models, get_commands, get_session_stats,
// export_html, get_messages, …) goes to the session's pi as the client
// wrote it, and pi's answer comes back in pi-tui's response shape. A few
// are kept from pi because they would go around what pi-tui owns.

// notPassed are pi's commands that rpc refuses, with why.
var notPassed = map[string]string{
	"bash":                 "it would run a command outside pi-tui's approvals; ask the agent in a prompt",
	"switch_session":       "pi would write another session file than pi-tui's; use new_session",
	"fork":                 "pi would write another session file than pi-tui's; use branch or pi-tui's fork",
	"clone":                "pi would write another session file than pi-tui's",
	"cycle_model":          "pi-tui chooses the runtime's model; use set_model",
	"cycle_thinking_level": "pi-tui chooses the thinking level; use set_thinking_level",
	"steer":                "pi-tui's prompt queue owns the runtime's turns",
	"follow_up":            "pi-tui's prompt queue owns the runtime's turns",
}

// maxPassing bounds the pass-through commands waiting on pi at once, so
// a client flooding them cannot pile up goroutines.
const maxPassing = 16

func (r *server) passThrough(c command) {
	if why, ok := notPassed[c.Type]; ok {
		r.reply(c, fmt.Errorf("%s is not passed to pi: %s", c.Type, why), nil)
		return
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(c.raw, &fields); err != nil {
		r.reply(c, fmt.Errorf("invalid command: %v", err), nil)
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
