package providers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// envFakeMCP makes the test binary an MCP server on stdio (TestMain):
// pi starts it as a configured server's command.
const envFakeMCP = "PI_TUI_TEST_FAKE_MCP"

func TestMain(m *testing.M) {
	if os.Getenv(envFakeMCP) == "1" {
		fakeMCPServer()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeMCPServer answers MCP's initialize and tools/list with two tools,
// one JSON-RPC message a line, until its input ends.
func fakeMCPServer() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		var result string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1.0.0"}}`
		case "tools/list":
			result = `{"tools":[{"name":"lookup","description":"Look a word up","inputSchema":{"type":"object","properties":{"word":{"type":"string"}}}},` +
				`{"name":"shout","description":"Say it loud","inputSchema":{"type":"object"}}]}`
		default:
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`+"\n", req.ID)
			continue
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
	}
}
