// Package fakepi builds a fake pi for tests: a Go program
// (cmd/fakepi) that answers --version, speaks pi 1.6's RPC over stdio
// (responses with ids, events in pi's shapes, agent_settled), drives the
// pi-tui bridge protocol from PI_TUI_BRIDGE_SOCKET as the real bridge
// would, plays a scripted conversation, appends pi's v3 session entries,
// and misbehaves on request. `go test ./...` then needs only Go.
//
// The program is configured by environment variables:
//
//	FAKEPI_VERSION       what --version prints (default 1.6.0)
//	FAKEPI_VERSION_FAIL  --version writes this to stderr and exits 1
//	FAKEPI_SCRIPT        a JSON file: Script
//	FAKEPI_DIE_AT_START  write this stderr line and exit 3 before reading a command
//	FAKEPI_DIE_AFTER     exit 2 after this many events of a prompt, with two stderr lines
//	FAKEPI_HUGE          write a line of this many bytes before the first prompt's events
//	FAKEPI_GARBAGE       write this non-JSON line before the first prompt's events
//	FAKEPI_SILENT        read commands, answer none
//	FAKEPI_IGNORE_EOF    keep running when stdin ends
//	FAKEPI_IGNORE_TERM   ignore SIGTERM
//	FAKEPI_LOG           append what happened to this file ("stdin closed", "SIGTERM", "exit")
//	FAKEPI_CONTEXT       get_state's model contextWindow (default 128000)
//
// Its catalogue (get_available_models, get_available_thinking_levels,
// get_commands) is the script's Models and Commands; get_state names the
// model --provider/--model launched it with, or set_model chose among the
// catalogue's, and the thinking level --thinking or set_thinking_level
// gave. The first line FAKEPI_LOG gets is "start " and the arguments, for
// tests of what a launch passed; each catalogue question adds "asked "
// and the command, each prompt "prompt " and its text on one line, each
// set_model "set_model P/ID" and each set_thinking_level
// "set_thinking_level LEVEL".
package fakepi

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Script is FAKEPI_SCRIPT's content: the replies the fake model gives,
// in order. A reply with tool calls is followed, after the tools ran, by
// the next reply in the same run; a reply without them ends the run.
type Script struct {
	Replies []Reply `json:"replies"`
	// Models are get_available_models' answer; none means one,
	// fake/fake-model.
	Models []Model `json:"models,omitempty"`
	// Commands are added to get_commands' answer (after the bridge's
	// pi-tui-branch).
	Commands []Command `json:"commands,omitempty"`
}

// Model is one model of the fake's catalogue, in pi's Model shape.
type Model struct {
	Provider      string `json:"provider"`
	ID            string `json:"id"`
	Name          string `json:"name,omitempty"`
	Reasoning     bool   `json:"reasoning,omitempty"`
	ContextWindow int    `json:"contextWindow,omitempty"`
	MaxTokens     int    `json:"maxTokens,omitempty"`
}

// Command is one of get_commands' entries: an extension command, a
// prompt template or a skill, with where it came from.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Source is "extension", "prompt" or "skill".
	Source string `json:"source"`
	// Path and Scope go into sourceInfo.
	Path  string `json:"path,omitempty"`
	Scope string `json:"scope,omitempty"`
}

// Reply is one assistant message.
type Reply struct {
	Thinking string `json:"thinking,omitempty"`
	// Text is streamed in Deltas pieces (split on spaces when Deltas is 0).
	Text  string `json:"text,omitempty"`
	Tools []Tool `json:"tools,omitempty"`
	// Hold stops the stream after its first delta until this many
	// steer/follow_up commands arrived, or an abort.
	Hold int `json:"hold,omitempty"`
	// HoldAbort stops the stream after its first delta until an abort.
	HoldAbort bool `json:"holdAbort,omitempty"`
	// UI dialogs asked before the text; their answers are appended to
	// the text as " [ui:<answer>]".
	UI []UI `json:"ui,omitempty"`
	// Retry emits auto_retry_start/end before the message.
	Retry bool `json:"retry,omitempty"`
	// Error ends the message with stopReason error and this message.
	Error string `json:"error,omitempty"`
	// Notify sends a notify and a setStatus before the text.
	Notify string `json:"notify,omitempty"`
	// ExtensionError emits an extension_error before the text.
	ExtensionError string `json:"extensionError,omitempty"`
}

// Tool is one tool call: read, write and bash run minimally in the
// working directory; remember goes to the bridge; anything else fails.
type Tool struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// UI is one extension dialog.
type UI struct {
	Method    string   `json:"method"`
	Title     string   `json:"title"`
	Options   []string `json:"options,omitempty"`
	TimeoutMs int      `json:"timeoutMs,omitempty"`
}

// Build puts the fake pi into dir and returns its path. A test binary
// builds it once (in TestMain) and shares it.
//
// It is go run's executable, which the go command keeps in its build
// cache (go build -o links it again every time, about a second of CPU
// for each test package that uses it): go run -exec cp copies it to dir
// instead of running it.
func Build(dir string) (string, error) {
	out := filepath.Join(dir, "fakepi")
	_, self, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "run", "-exec", "cp", "./cmd/fakepi", out)
	cmd.Dir = filepath.Dir(self)
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return out, nil
}
