package rpc

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/runtimes"
)

func (r *server) enqueue(sessionID string, size int, run func()) error {
	return r.queue.push(job{session: sessionID, size: size, run: run})
}

func (r *server) reply(c command, err error, data any) {
	resp := response{Type: "response", ID: c.ID, Command: c.Type, Success: err == nil, Data: data}
	if err != nil {
		resp.Error = err.Error()
	}
	r.out.Write(resp)
}

func (r *server) handle(c command) {
	ctx := r.ctx
	switch c.Type {
	case "prompt":
		if strings.TrimSpace(c.Message) == "" {
			r.reply(c, errors.New("message is empty"), nil)
			return
		}
		sessionID, model := r.session, r.spec()
		r.reply(c, r.enqueue(sessionID, len(c.Message), func() {
			// /skill:name and /template calls expand as pi expands them.
			text, err := r.m.Expand(ctx, sessionID, c.Message)
			if err != nil {
				r.m.Events().Publish(events.AgentEnded{SessionID: sessionID, Error: err.Error(), StopReason: provider.StopError})
				return
			}
			// Failures end with the agent_end the runtime emits.
			r.m.Prompt(ctx, sessionID, model, text)
		}), nil)
	case "abort":
		// Waiting prompts go too: abort means stop, not "skip to the next".
		// The running job's session, which a new_session may have left.
		dropped := r.queue.drop()
		sid := r.queue.current()
		if sid == "" {
			sid = r.session
		}
		r.reply(c, nil, map[string]any{"aborted": r.m.Abort(sid), "dropped": dropped})
	case "get_state":
		r.reply(c, nil, r.state())
	case "new_session":
		if c.Worktree {
			r.newWorktreeSession(c)
			return
		}
		s, err := r.h.Sessions.Create(ctx, r.project.ID, "")
		if err != nil {
			r.reply(c, err, nil)
			return
		}
		r.m.Retire(r.session, runtimes.ReasonSessionChanged)
		r.session = s.ID()
		r.reply(c, nil, map[string]string{"sessionId": s.ID()})
	case "compact":
		sessionID, model := r.session, r.spec()
		r.reply(c, r.enqueue(sessionID, len(c.Instructions), func() {
			// Failures end with the compaction_end the runtime emits.
			r.m.Compact(ctx, sessionID, model, c.Instructions)
		}), nil)
	case "branch":
		if c.EntryID == nil {
			r.reply(c, errors.New(`branch needs "entryId": the entry to continue from ("" for before the first one)`), nil)
			return
		}
		// In the session's order: after the prompts before it, so a
		// client that sends branch on agent_end never finds the runtime
		// still finishing that prompt (busy).
		sessionID, entry := r.session, *c.EntryID
		if err := r.enqueue(sessionID, len(entry), func() {
			r.reply(c, r.m.Sessions().Branch(ctx, sessionID, entry), nil)
		}); err != nil {
			r.reply(c, err, nil)
		}
	case "set_plan":
		if c.Plan == nil {
			r.reply(c, errors.New(`set_plan needs "plan": true or false`), nil)
			return
		}
		// In the session's order, as branch: the prompts sent before it
		// run as they were sent, the ones after it in the new mode.
		sessionID, on := r.session, *c.Plan
		if err := r.enqueue(sessionID, 1, func() {
			r.m.Plans().Set(sessionID, on)
			r.reply(c, nil, map[string]bool{"plan": on})
		}); err != nil {
			r.reply(c, err, nil)
		}
	case "set_model":
		spec := c.Model
		if spec == "" && c.Provider != "" {
			spec = c.Provider + "/" + c.ModelID
		}
		if spec == "" {
			r.reply(c, errors.New(`set_model needs "model": "PROVIDER/ID"`), nil)
			return
		}
		// Checked without building a client: no key command runs here.
		if _, err := provider.Describe(r.h.Places.AgentDir, r.env, spec); err != nil {
			r.reply(c, err, nil)
			return
		}
		r.model = spec
		r.reply(c, nil, map[string]string{"model": spec})
	case "set_thinking_level":
		level, err := provider.ParseThinkingLevel(c.Level)
		if err != nil {
			r.reply(c, fmt.Errorf(`set_thinking_level needs "level": %v`, err), nil)
			return
		}
		r.level = level
		data := map[string]string{"level": level}
		// Say what the model will use: an unsupported level is clamped.
		if d, err := provider.Describe(r.h.Places.AgentDir, r.env, r.spec()); err == nil {
			data["thinkingLevel"] = d.Model.Thinking
		}
		r.reply(c, nil, data)
	default:
		eng, err := r.m.EngineOf(ctx, r.session)
		switch {
		case err == nil && eng.Caps.Calls:
			r.passThrough(c)
			return
		case err != nil:
			// The pi engine was chosen but cannot run: say that, not
			// "unknown", for what is likely one of pi's commands.
			r.reply(c, fmt.Errorf("%s is not one of pi-tui's commands, and the session's engine cannot run to take pi's: %v", c.Type, err), nil)
			return
		}
		r.reply(c, fmt.Errorf("unknown command %q (prompt, abort, get_state, new_session, compact, branch, set_model, set_thinking_level, set_plan)", c.Type), nil)
	}
}

func (r *server) state() stateReply {
	st := r.m.State(r.session)
	out := stateReply{SessionID: st.SessionID, Runtime: st.Runtime.String(), Model: st.Model, Thinking: st.Thinking, Usage: st.Usage, Leaf: st.Leaf,
		Title: st.Title, Project: r.project.Name, Root: r.project.Root, ModelIn: r.spec(), Plan: r.m.Plans().On(r.session)}
	if st.Last != nil {
		out.Last, _ = events.Marshal(st.Last)
	}
	return out
}

// newWorktreeSession answers new_session with "worktree": true.
func (r *server) newWorktreeSession(c command) {
	s, w, err := r.h.Worktrees.NewSession(r.ctx, r.h.Sessions, r.project.ID, c.Base, "")
	if err != nil {
		r.reply(c, err, nil)
		return
	}
	r.m.Retire(r.session, runtimes.ReasonSessionChanged)
	r.session = s.ID()
	r.reply(c, nil, map[string]any{"sessionId": s.ID(), "worktree": map[string]string{"root": w.Root, "branch": w.Branch, "base": w.Base}})
}
