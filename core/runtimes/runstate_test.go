package runtimes

import "testing"

// The states say the words get_state and the status bar said when the
// state was a string: scripts reading "runtime" see no change.
func TestRunStateWords(t *testing.T) {
	for s, want := range map[RunState]string{StateNone: "none", StateIdle: "idle", StateWorking: "working", StateRetired: "retired"} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", s, got, want)
		}
	}
	if (State{}).Runtime != StateNone {
		t.Error("a zero State does not say none")
	}
}
