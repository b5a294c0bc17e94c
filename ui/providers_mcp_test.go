package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/realpi"
	"github.com/pi-tui/pi-tui/internal/screentest"
)

// mcpServerScript is a stdio MCP server in sh: it answers initialize and
// tools/list with one tool named by its first argument, so the tool pi
// lists shows the arguments reached the server as typed.
const mcpServerScript = `#!/bin/sh
while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
  *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}\n' "$id" ;;
  *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"%s","inputSchema":{"type":"object"}}]}}\n' "$id" "$1" ;;
  *) [ -n "$id" ] && printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}\n' "$id" ;;
  esac
done
`

// realPiFixture is a pi-tui home whose program runs the real pi 1.6; it
// skips the test without one.
func realPiFixture(t *testing.T) (*fixture, []string) {
	t.Helper()
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	f := newFixture(t)
	f.env["PI_TUI_PI"] = argv[0]
	f.env["PATH"] = os.Getenv("PATH")
	return f, argv
}

// mcpFixture is realPiFixture with the sh MCP server at home/srv.sh.
func mcpFixture(t *testing.T) (*fixture, []string) {
	t.Helper()
	f, argv := realPiFixture(t)
	if err := os.WriteFile(filepath.Join(f.home, "srv.sh"), []byte(mcpServerScript), 0o755); err != nil {
		t.Fatal(err)
	}
	return f, argv
}

// piMCPServer is one server of `pi mcp list --json`.
type piMCPServer struct {
	Name, Scope, State string
	Tools              []string
}

// piMCPList runs the real `pi mcp list --json` in dir, with the
// fixture's agent dir, as a user would from a shell.
func piMCPList(t *testing.T, f *fixture, argv []string, dir string) []piMCPServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], "mcp", "list", "--json")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+f.home, "PI_CODING_AGENT_DIR="+filepath.Join(f.home, ".pi", "agent"))
	out, _ := cmd.Output() // exit status 1 when a server is not connected
	var l struct{ Servers []piMCPServer }
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatalf("pi mcp list --json: %v\n%s", err, out)
	}
	return l.Servers
}

func serverNamed(l []piMCPServer, name string) (piMCPServer, bool) {
	i := slices.IndexFunc(l, func(s piMCPServer) bool { return s.Name == name })
	if i < 0 {
		return piMCPServer{}, false
	}
	return l[i], true
}

// serverRow is the start of a server's row on the Providers screen (not
// the cursor's): its name in its column, then what follows.
func serverRow(name, rest string) string { return fmt.Sprintf("  %-18s %s", name, rest) }

// waitProse waits for a frame that says all of want, read as a person
// reads it (a sentence may wrap).
func (s *session) waitProse(want ...string) string {
	s.t.Helper()
	return s.sc.WaitFrame(func(frame string) bool {
		text := string(screentest.Prose([]byte(frame)))
		for _, w := range want {
			if !strings.Contains(text, w) {
				return false
			}
		}
		return true
	})
}

// The Providers screen over a trusted project lists pi's global servers
// and the project's .pi/mcp.json, adds a server from its form (pi mcp
// add: a `pi mcp list` in a shell then has it, connected with the
// arguments as typed), keeps the form's text when pi refuses, adds one to
// the project's file, and removes one after asking.
func TestProvidersScreenAddsAndRemovesMCPServers(t *testing.T) {
	t.Parallel()
	f, argv := mcpFixture(t)
	srv := filepath.Join(f.home, "srv.sh")
	f.add("shop", "shop", true)
	shop := filepath.Join(f.home, "shop")
	f.write("shop/.pi/mcp.json", `{"mcpServers":{"shoptools":{"command":"/bin/sh","args":["`+srv+`","find"]}}}`)

	// Every provider and server fits on one screen; the palette's
	// Providers opens on the project selected on Projects.
	s := f.run(110, 130)
	s.waitScreen("Projects", "shop")
	s.keys("ctrl+k", "Providers", "enter")
	s.waitScreen("MCP servers (pi's: global, and shop's .pi/mcp.json)", serverRow("shoptools", "connected · project · 1 tool"))
	s.waitProse("A provider a pi extension registers shows here once it has a credential")
	// tab jumps from the providers to the first server and back.
	s.keys("tab")
	s.waitScreen("› shoptools")
	s.keys("tab")
	s.sc.WaitFrame(func(frame string) bool {
		return !strings.Contains(frame, "› shoptools") && strings.Contains(frame, "› ")
	})

	// Add a global stdio server: its name, its command with a quoted
	// argument, the scope left global.
	s.keys("m")
	s.waitScreen("Add an MCP server", "Scope")
	s.keys("words", "enter")
	s.keys("/bin/sh "+srv+` "look up"`, "enter")
	s.waitScreen("(•) global")
	s.keys("enter")
	s.waitProse(`Added global MCP server "words"`)
	s.waitScreen(serverRow("words", "connected · global · 1 tool"))
	if w, ok := serverNamed(piMCPList(t, f, argv, shop), "words"); !ok || w.Scope != "global" || !slices.Equal(w.Tools, []string{"look up"}) {
		t.Errorf("pi mcp list after adding words: %+v", w)
	}

	// pi refuses (the global file is not what it writes to): its one
	// line shows in the form, which keeps what was typed for a retry.
	agentMCP := ".pi/agent/mcp.json"
	kept := f.read(agentMCP)
	f.write(agentMCP, `{"mcpServers": []}`)
	s.keys("m")
	s.waitScreen("Add an MCP server")
	s.keys("again", "enter", "/bin/sh "+srv+" more", "ctrl+s")
	s.waitProse("pi mcp add: Could not update", `expected an object with an "mcpServers" object`)
	s.waitScreen("again", "srv.sh more")
	f.write(agentMCP, kept)
	s.keys("ctrl+s")
	s.waitProse(`Added global MCP server "again"`)
	s.waitScreen(serverRow("again", "connected · global"), serverRow("words", "connected"), serverRow("shoptools", "connected"))

	// Add one to the project's file.
	s.keys("m")
	s.waitScreen("Add an MCP server")
	s.keys("local2", "enter", "/bin/sh "+srv+" near", "enter", "p")
	s.waitScreen("(•) project", "now ~/shop/.pi/mcp.json")
	s.keys("enter")
	s.waitProse(`Added project MCP server "local2"`)
	s.waitScreen(serverRow("local2", "connected · project · 1 tool"))
	if l, ok := serverNamed(piMCPList(t, f, argv, shop), "local2"); !ok || l.Scope != "project" {
		t.Errorf("pi mcp list after adding local2: %+v", l)
	}

	// Remove words: the last rows are the global servers, then the
	// project's (as pi lists them).
	s.keys("G")
	s.waitScreen("› local2")
	s.keys("k", "k", "k")
	s.waitScreen("› words")
	s.keys("D")
	s.waitProse("Remove MCP server words", "pi removes words from ~/.pi/agent/mcp.json")
	s.keys("y")
	s.waitProse(`Removed global MCP server "words"`)
	s.sc.WaitFrame(func(frame string) bool {
		return !strings.Contains(frame, "words ") && strings.Contains(frame, "again ") && strings.Contains(frame, "local2 ")
	})
	if w, ok := serverNamed(piMCPList(t, f, argv, shop), "words"); ok {
		t.Errorf("pi mcp list still has words: %+v", w)
	}
	s.final()
}

// An untrusted project's .pi/mcp.json is not loaded, as pi has it: its
// servers are not listed (nor started), the screen says why and how to
// trust the project, and the form refuses the project's file.
func TestProvidersScreenUntrustedProjectMCP(t *testing.T) {
	t.Parallel()
	f, argv := mcpFixture(t)
	f.add("lab", "lab", false)
	lab := filepath.Join(f.home, "lab")
	f.write("lab/.pi/mcp.json", `{"mcpServers":{"labtools":{"command":"/bin/sh","args":["`+filepath.Join(f.home, "srv.sh")+`","x"]}}}`)

	s := f.run(110, 130)
	s.waitScreen("Projects", "lab")
	s.keys("ctrl+k", "Providers", "enter")
	frame := s.waitProse("lab's ~/lab/.pi/mcp.json is not loaded: the project is not trusted", "press t in Projects to trust it")
	if strings.Contains(frame, "labtools") {
		t.Errorf("an untrusted project's server is listed:\n%s", frame)
	}
	s.waitScreen("MCP servers (pi's, global)", "none: m adds one")
	s.keys("m")
	s.waitScreen("Add an MCP server")
	s.keys("enter", "enter", "p")
	s.waitProse("lab is not trusted, so pi ignores its .pi/mcp.json: trust it first")
	s.waitScreen("(•) global")
	s.final()
	if l := piMCPList(t, f, argv, lab); len(l) != 0 {
		t.Errorf("pi lists servers for the untrusted project: %+v", l)
	}
}
