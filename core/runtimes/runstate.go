package runtimes

// RunState is what a session's runtime is doing, as State reports it and
// as a view following the runtime events shows it. Its String is the
// word the wire carries (get_state's "runtime"), which stays as it was
// when this was a string (ADR 0084).
type RunState uint8

// Run states.
const (
	// StateNone: the session has no runtime; its next prompt launches one.
	StateNone RunState = iota
	// StateIdle: a runtime is up and waits for a prompt.
	StateIdle
	// StateWorking: the runtime runs a prompt or a compaction.
	StateWorking
	// StateRetired: a view heard runtime_retired; State never reports it
	// (a session whose runtime was retired has none: StateNone).
	StateRetired
)

func (s RunState) String() string {
	switch s {
	case StateIdle:
		return "idle"
	case StateWorking:
		return "working"
	case StateRetired:
		return "retired"
	}
	return "none"
}
