// Package e2egate decides whether the slow end-to-end tests run. They do
// when PI_TUI_E2E=1: the ones that run the real pi (node), drive the
// built binary in tmux or over SSH, or load the machine (hundreds of
// megabytes of sessions, fifty SSH clients). Plain `go test ./...` skips
// them, saying how to run them, so it stays quick on a machine with only
// Go; .ci/run runs them. See docs/testing.md and
// docs/adr/0086-test-layout.md.
//
// The gate is an environment variable rather than a build tag so that
// the gated tests are always compiled, vetted and linted, and so that
// go test's cache, which keys a package's result on the variables its
// tests read, reruns only the packages that have gated tests.
package e2egate

import (
	"os"
	"testing"
)

// Env is the variable that turns the end-to-end suite on.
const Env = "PI_TUI_E2E"

// Enabled reports whether PI_TUI_E2E=1 asks for the end-to-end suite.
func Enabled() bool { return os.Getenv(Env) == "1" }

// Reason is the skip message of a gated test; what says what makes it
// slow.
func Reason(what string) string {
	return what + ": an end-to-end test, run by PI_TUI_E2E=1 go test ./... (CI runs it)"
}

// Require skips tb unless the end-to-end suite was asked for.
func Require(tb testing.TB, what string) {
	tb.Helper()
	if !Enabled() {
		tb.Skip(Reason(what))
	}
}
