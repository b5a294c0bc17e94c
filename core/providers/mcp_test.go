package providers

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMCPServersThroughPi(t *testing.T) {
	agent := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pi := piFor(t, agent, envFakeMCP+"=1")
	ctx := context.Background()

	args, err := MCPAdd{Name: "words", Command: self}.AddArgs()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pi.RunMCP(ctx, args...); err != nil {
		t.Fatal(err)
	}
	args, _ = MCPAdd{Name: "docs", URL: "http://127.0.0.1:9/mcp", BearerEnv: "DOCS_TOKEN"}.AddArgs()
	if _, err := pi.RunMCP(ctx, args...); err != nil {
		t.Fatal(err)
	}
	// The user's own layout and members in mcp.json survive turning a
	// server off (pi's mcp.json takes no comments).
	path := filepath.Join(agent, "mcp.json")
	before, _ := os.ReadFile(path)
	withComment := strings.Replace(strings.ReplaceAll(string(before), "  ", "\t"), "{", `{"autoEnableCodemode": true,   `, 1)
	os.WriteFile(path, []byte(withComment), 0o600)

	l, err := pi.ListMCP(ctx)
	if err != nil {
		t.Fatal(err)
	}
	words := find(t, l, "words")
	if words.State != "connected" || !slices.Equal(words.Tools, []string{"lookup", "shout"}) || words.Scope != "global" || words.Source != path {
		t.Fatalf("words: %+v", words)
	}
	if docs := find(t, l, "docs"); docs.State == "connected" || docs.Error == "" || docs.Transport != "http://127.0.0.1:9/mcp" {
		t.Fatalf("docs: %+v", docs)
	}

	if err := SetMCPEnabled(words.Source, "words", false, false); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if add := inserted(t, []byte(withComment), after); strings.TrimSpace(strings.Trim(strings.TrimSpace(add), ",")) != `"enabled": false` {
		t.Fatalf("added %q", add)
	}
	l, _ = pi.ListMCP(ctx)
	if w := find(t, l, "words"); w.Enabled || w.State == "connected" {
		t.Fatalf("words still on: %+v", w)
	}
	if err := SetMCPEnabled(words.Source, "words", true, false); err != nil {
		t.Fatal(err)
	}
	l, _ = pi.ListMCP(ctx)
	if w := find(t, l, "words"); !w.Enabled || w.State != "connected" {
		t.Fatalf("words not back on: %+v", w)
	}

	if _, err := pi.RunMCP(ctx, "mcp", "remove", "docs"); err != nil {
		t.Fatal(err)
	}
	l, _ = pi.ListMCP(ctx)
	if len(l.Servers) != 1 {
		t.Fatalf("after remove: %+v", l.Servers)
	}
	if _, err := pi.RunMCP(ctx, "mcp", "remove", "nothing"); err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("removing an unknown server: %v", err)
	}
}

func find(t *testing.T, l MCPList, name string) MCPServer {
	t.Helper()
	for _, s := range l.Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("%s is not listed: %+v", name, l)
	return MCPServer{}
}

func TestMCPAddArgsRefuseBadInput(t *testing.T) {
	for _, a := range []MCPAdd{
		{Name: "bad name", Command: "x"},
		{Name: "ok"},
		{Name: "ok", Command: "x", URL: "http://x"},
		{Name: "ok", URL: "file:///etc/passwd"},
		{Name: "ok", Command: "x", Env: []string{"novalue"}},
	} {
		if _, err := a.AddArgs(); err == nil {
			t.Errorf("%+v was accepted", a)
		}
	}
}

func TestParseMCPServer(t *testing.T) {
	for _, c := range []struct {
		in      string
		command string
		args    []string
		url     string
	}{
		{in: "npx -y @modelcontextprotocol/server-filesystem .", command: "npx", args: []string{"-y", "@modelcontextprotocol/server-filesystem", "."}},
		{in: `  /bin/sh '/a dir/srv.sh' "look up" it\'s "say \"hi\"" ''`, command: "/bin/sh", args: []string{"/a dir/srv.sh", "look up", "it's", `say "hi"`, ""}},
		{in: `uvx tools-mcp --root "$HOME"`, command: "uvx", args: []string{"tools-mcp", "--root", "$HOME"}},
		{in: "https://example.com/mcp", url: "https://example.com/mcp"},
	} {
		a, err := ParseMCPServer("x", c.in, false)
		if err != nil || a.Command != c.command || !slices.Equal(a.Args, c.args) || a.URL != c.url {
			t.Errorf("%s: %+v %v", c.in, a, err)
		}
	}
	for _, in := range []string{"", "   ", `sh -c 'echo`, `sh "x`, `sh x\`, "https://a b"} {
		if a, err := ParseMCPServer("x", in, false); err == nil {
			t.Errorf("%q was accepted: %+v", in, a)
		}
	}
	if !SameMCPName("dev-radius", "dev_radius") || SameMCPName("a", "b") {
		t.Error("SameMCPName")
	}
}
