package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// MCP servers are pi's: pi-tui lists them with `pi mcp list --json`,
// adds, removes and signs in through `pi mcp`, and turns one on or off
// in the mcp.json that defines it, as pi's /mcp does.

// MCPServer is one server as `pi mcp list --json` reports it.
type MCPServer struct {
	Name      string `json:"name"`
	Scope     string `json:"scope"`  // global or project
	Source    string `json:"source"` // the mcp.json that defines it
	Enabled   bool   `json:"enabled"`
	Exposure  string `json:"exposure"`
	Transport string `json:"transport"` // the command or URL
	State     string `json:"state"`     // connected, failed, needs-auth, disabled, …
	Error     string `json:"error,omitempty"`
	Tools     []string
}

// MCPList is every server pi reads for a folder.
type MCPList struct {
	Servers []MCPServer `json:"servers"`
	Errors  []string    `json:"errors,omitempty"`
	// Note is pi's sentence about a project file it ignored (untrusted).
	Note string `json:"note,omitempty"`
}

// ListMCP runs `pi mcp list --json` in p.Dir: the global servers and,
// for a trusted project, the project's. pi connects to each to report
// its state and tools; a server that fails is reported, not an error.
func (p Pi) ListMCP(ctx context.Context) (MCPList, error) {
	out, errOut, _, err := p.run(ctx, "mcp", "list", "--json")
	if err != nil {
		return MCPList{}, err
	}
	var raw struct {
		Servers []struct {
			MCPServer
			Tools []json.RawMessage `json:"tools"`
		} `json:"servers"`
		Errors []json.RawMessage `json:"errors"`
		Note   string            `json:"note"`
	}
	if json.Unmarshal(bytes.TrimSpace(out), &raw) != nil {
		return MCPList{}, fmt.Errorf("pi mcp list gave no list: %s", firstLine(errOut))
	}
	l := MCPList{Note: raw.Note}
	for _, s := range raw.Servers {
		srv := s.MCPServer
		for _, t := range s.Tools {
			srv.Tools = append(srv.Tools, toolName(t))
		}
		l.Servers = append(l.Servers, srv)
	}
	for _, e := range raw.Errors {
		l.Errors = append(l.Errors, errorText(e))
	}
	return l, nil
}

// toolName is a listed tool's name: a string, or an object's "name".
func toolName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Name string `json:"name"`
	}
	json.Unmarshal(raw, &o)
	return o.Name
}

// errorText is a listed configuration error: a string, or an object's
// "message" (with its server).
func errorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Server  string `json:"server"`
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	json.Unmarshal(raw, &o)
	msg := o.Message + o.Error
	if o.Server != "" {
		msg = o.Server + ": " + msg
	}
	if msg == "" {
		msg = string(raw)
	}
	return msg
}

// mcpNameRE is a name's letters; its length (at most 64) is checked apart
// (see nameRE).
var mcpNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// CheckMCPName refuses a server name pi would reject.
func CheckMCPName(name string) error {
	if len(name) > 64 || !mcpNameRE.MatchString(name) {
		return fmt.Errorf("the MCP server name %q may hold only letters, digits, '_' and '-' (at most 64)", name)
	}
	return nil
}

// MCPAdd is a server to add: Command (with Args) for stdio, or URL.
type MCPAdd struct {
	Name    string
	Local   bool // the project's .pi/mcp.json (p.Dir) instead of the global file
	Command string
	Args    []string
	Env     []string // KEY=VALUE
	URL     string
	// BearerEnv names a variable sent as Authorization: Bearer.
	BearerEnv string
}

// AddArgs are the arguments of `pi mcp add` for a.
func (a MCPAdd) AddArgs() ([]string, error) {
	if err := CheckMCPName(a.Name); err != nil {
		return nil, err
	}
	args := []string{"mcp", "add", a.Name}
	if a.Local {
		args = append(args, "--local")
	}
	switch {
	case a.URL != "" && a.Command != "":
		return nil, fmt.Errorf("an MCP server is a command or a URL, not both")
	case a.URL != "":
		if !strings.HasPrefix(a.URL, "http://") && !strings.HasPrefix(a.URL, "https://") {
			return nil, fmt.Errorf("the MCP server URL %q must start with http:// or https://", a.URL)
		}
		args = append(args, "--url", a.URL)
		if a.BearerEnv != "" {
			if !isEnvName(a.BearerEnv) {
				return nil, fmt.Errorf("%q is not a variable name", a.BearerEnv)
			}
			args = append(args, "--bearer-token-env-var", a.BearerEnv)
		}
		return args, nil
	case a.Command != "":
		for _, kv := range a.Env {
			if k, _, ok := strings.Cut(kv, "="); !ok || !isEnvName(k) {
				return nil, fmt.Errorf("--env %q must be KEY=VALUE", kv)
			}
			args = append(args, "--env", kv)
		}
		return append(append(args, "--", a.Command), a.Args...), nil
	}
	return nil, fmt.Errorf("an MCP server needs a command (after --) or --url")
}

// RunMCP runs a `pi mcp` command that needs no terminal (add, remove)
// and returns what pi said, or pi's own error as one sentence.
func (p Pi) RunMCP(ctx context.Context, args ...string) (string, error) {
	out, errOut, code, err := p.run(ctx, args...)
	if err != nil {
		return "", err
	}
	if code != 0 {
		return "", fmt.Errorf("pi %s: %s", strings.Join(args[:min(2, len(args))], " "), firstLine(append(errOut, out...)))
	}
	return strings.TrimSpace(string(out)), nil
}

// SetMCPEnabled turns server name on or off in the mcp.json at source:
// its "enabled" member is set or added, every other byte kept, as pi's
// /mcp saves it. With override (a project's file, for a server the
// global file defines) a missing server gets an entry of its own holding
// only "enabled", which pi reads as an override of the global one; the
// file is made when there is none.
func SetMCPEnabled(source, name string, on, override bool) error {
	if !filepath.IsAbs(source) || filepath.Base(source) != "mcp.json" {
		return fmt.Errorf("%q is not an mcp.json pi-tui can change", source)
	}
	if err := CheckMCPName(name); err != nil {
		return err
	}
	value := "false"
	if on {
		value = "true"
	}
	entry := "{ \"enabled\": " + value + " }"
	return spliceFile(source, 0o600, func(d *doc) ([]byte, error) {
		if d == nil {
			if !override {
				return nil, fmt.Errorf("%s does not define %q", source, name)
			}
			return []byte("{\n  \"mcpServers\": {\n    " + mustQuote(name) + ": " + entry + "\n  }\n}\n"), nil
		}
		servers, _, ok := d.find(d.root(), "mcpServers")
		if !ok {
			if !override {
				return nil, fmt.Errorf("%s does not define %q", source, name)
			}
			return d.insertMember(d.root(), "mcpServers", "{\n  "+mustQuote(name)+": "+entry+"\n}"), nil
		}
		if d.raw[servers.value.start] != '{' {
			return nil, fmt.Errorf("%s: \"mcpServers\" is not an object; it was left as it is", source)
		}
		srv, _, ok := d.find(servers.value.start, name)
		switch {
		case !ok && override:
			return d.insertMember(servers.value.start, name, entry), nil
		case !ok || d.raw[srv.value.start] != '{':
			return nil, fmt.Errorf("%s does not define %q", source, name)
		}
		if en, _, ok := d.find(srv.value.start, "enabled"); ok {
			return d.replaceValue(en.value, value), nil
		}
		return d.insertMember(srv.value.start, "enabled", value), nil
	})
}

// ParseMCPServer reads what a user typed for a server (the Providers
// screen's form): an http(s) URL, or a command and its arguments, split
// as a POSIX shell splits words (quotes and backslashes; nothing is
// expanded or run), since pi runs the command itself, not through a
// shell.
func ParseMCPServer(name, server string, local bool) (MCPAdd, error) {
	a := MCPAdd{Name: name, Local: local}
	server = strings.TrimSpace(server)
	if strings.HasPrefix(server, "http://") || strings.HasPrefix(server, "https://") {
		if strings.ContainsAny(server, " \t") {
			return MCPAdd{}, fmt.Errorf("a URL holds no spaces: %q", server)
		}
		a.URL = server
		return a, nil
	}
	words, err := splitWords(server)
	if err != nil {
		return MCPAdd{}, err
	}
	if len(words) == 0 {
		return MCPAdd{}, fmt.Errorf("type the command that starts the server (with its arguments), or its http(s) URL")
	}
	a.Command, a.Args = words[0], words[1:]
	return a, nil
}

// splitWords splits s into words as a POSIX shell does, quotes and
// backslashes only: '…' keeps everything, "…" keeps all but \" \\ \$ \`
// and a backslash outside quotes keeps the next character.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case c == '\\':
			if i+1 == len(s) {
				return nil, fmt.Errorf("the command ends with a lone backslash")
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("the command has a ' that is not closed")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i, inWord = i+1+end, true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, fmt.Errorf("the command has a \" that is not closed")
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// SameMCPName says a and b name one server for pi, which counts names
// that differ only in '-' and '_' as the same.
func SameMCPName(a, b string) bool {
	return strings.ReplaceAll(a, "-", "_") == strings.ReplaceAll(b, "-", "_")
}
