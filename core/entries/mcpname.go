package entries

import (
	"strings"
)

// MCPTool splits the name pi gives an MCP server's tool,
// mcp__<server>__<tool>, so an approval can say which server asks: the
// same tool name from two servers is two different programs. pi writes
// the server's name with every character other than letters, digits and
// _ as _, so server is that form.
func MCPTool(name string) (server, tool string, ok bool) {
	rest, found := strings.CutPrefix(name, "mcp__")
	if !found {
		return "", "", false
	}
	server, tool, found = strings.Cut(rest, "__")
	if !found || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// ToolLabel is how a tool is named to the person approving it: an MCP
// server's tool as "TOOL (MCP server SERVER)", any other by its name.
func ToolLabel(name string) string {
	if server, tool, ok := MCPTool(name); ok {
		return tool + " (MCP server " + server + ")"
	}
	return name
}
