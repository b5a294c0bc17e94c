package main

// set_model and set_thinking_level, as pi answers them: the model must be
// one of the catalogue's (pi's "Model not found: P/ID" otherwise), and
// get_state reports both from then on. Each is logged (FAKEPI_LOG) so a
// test can tell a change made in place from a relaunch.

// tuning is the model and thinking level the fake runs with: the launch's
// (--provider, --model, --thinking) until a set_ command changes them.
type tuning struct {
	provider, model, thinking string
}

func launchTuning() tuning {
	return tuning{provider: argValue("--provider"), model: argValue("--model"), thinking: argValue("--thinking")}
}

// tune answers set_model and set_thinking_level; false for any other.
func (f *fake) tune(id any, typ string, c obj) bool {
	switch typ {
	case "set_model":
		prov, mid := str(c["provider"]), str(c["modelId"])
		for _, m := range f.models() {
			if m.Provider == prov && m.ID == mid {
				f.mu.Lock()
				f.tuned.provider, f.tuned.model = prov, mid
				f.mu.Unlock()
				f.logf("set_model %s/%s", prov, mid)
				f.respond(id, typ, modelObj(m), "")
				return true
			}
		}
		f.respond(id, typ, nil, "Model not found: "+prov+"/"+mid)
	case "set_thinking_level":
		level := str(c["level"])
		f.mu.Lock()
		f.tuned.thinking = level
		f.mu.Unlock()
		f.logf("set_thinking_level %s", level)
		f.respond(id, typ, nil, "")
	default:
		return false
	}
	return true
}
