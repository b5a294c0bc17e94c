package entries

import (
	"testing"
)

// TestCommandRan: a failed bash result ending with either engine's status
// line is a command's output; a reason a call did not run is not.
func TestCommandRan(t *testing.T) {
	for result, want := range map[string]bool{
		"oops\n[Exit status 3.]": true,
		"\n[Timed out after 2s; the command and everything it started were stopped.]\n": true,
		"x\n[Aborted; the command and everything it started were stopped.]":             true,
		"[Killed by signal killed.]":                     true,
		"oops\n\nCommand exited with code 3":             true,
		"Command timed out after 5 seconds":              true,
		"Command aborted":                                true,
		"out\n\nCommand terminated without an exit code": true,
		PlanRefusal("bash"):                              false,
		"The user denied this bash call. Do not retry it; ask the user or choose another way.": false,
		"Blocked by policy":                     false,
		"Command exited with code 3\nthen more": false,
		"":                                      false,
		"Error: cannot run the command: no shell": false,
	} {
		if got := CommandRan(result); got != want {
			t.Errorf("CommandRan(%q) = %v, want %v", result, got, want)
		}
	}
}
