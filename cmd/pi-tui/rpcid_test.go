package main

import (
	"strings"
	"testing"
)

// Every response carries the command's id as the client wrote it, and a
// line that is no command says why, in one clear error.
func TestRPCEchoesAnyID(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, nil)
	r := startRPC(t, c, "--project", "mono")
	for _, tc := range []struct{ send, want string }{
		{`{"id":"s","type":"get_state"}`, `{"type":"response","id":"s","command":"get_state","success":true,"data":`},
		{`{"id":1,"type":"get_state"}`, `{"type":"response","id":1,"command":"get_state","success":true,"data":`},
		{`{"id":12345678901234567890.50,"type":"get_state"}`, `{"type":"response","id":12345678901234567890.50,"command":"get_state",`},
		{`{"id":null,"type":"nope"}`, `{"type":"response","id":null,"command":"nope","success":false,"error":"unknown command \"nope\"`},
		{`{"id": {"n": [1, 2.0], "s": "\u00e9<"}, "type": "abort"}`, `{"type":"response","id":{"n":[1,2.0],"s":"\u00e9<"},"command":"abort","success":true,`},
		{`{"id":"\u0041","type":"get_state"}`, `{"type":"response","id":"\u0041","command":"get_state",`},
		{`{"id":true,"type":"branch"}`, `{"type":"response","id":true,"command":"branch","success":false,"error":"branch needs \"entryId\"`},
		{`{"type":"get_state"}`, `{"type":"response","command":"get_state","success":true,`},
		{`{"id":7,"type":5}`, `{"type":"response","id":7,"command":"parse","success":false,"error":"invalid command: \"type\" must be a string, not a number"}`},
		{`{"id":[8],"type":"branch","entryId":{}}`, `{"type":"response","id":[8],"command":"parse","success":false,"error":"invalid command: \"entryId\" must be a string, not an object"}`},
		{`{"id":9,"type":"new_session","worktree":"yes"}`, `{"type":"response","id":9,"command":"parse","success":false,"error":"invalid command: \"worktree\" must be true or false, not a string"}`},
		{`not json`, `{"type":"response","command":"parse","success":false,"error":"invalid JSON: invalid character 'o' in literal null (expecting 'u')"}`},
		{`{"id":10,"type":"get_state"`, `{"type":"response","command":"parse","success":false,"error":"invalid JSON: unexpected end of JSON input"}`},
		{`[{"id":11}]`, `{"type":"response","command":"parse","success":false,"error":"invalid command: a command is a JSON object ({\"type\": …}), not an array"}`},
		{`"get_state"`, `{"type":"response","command":"parse","success":false,"error":"invalid command: a command is a JSON object ({\"type\": …}), not a string"}`},
		{`null`, `{"type":"response","command":"parse","success":false,"error":"invalid command: a command is a JSON object ({\"type\": …}), not null"}`},
	} {
		r.send(tc.send)
		line := r.nextResponse()
		if !strings.HasPrefix(line, tc.want) {
			t.Errorf("sent %s\ngot  %s\nwant %s…", tc.send, line, tc.want)
		}
	}
}

// nextResponse reads raw lines up to the next response and returns it.
func (r *rpcSession) nextResponse() string {
	r.t.Helper()
	for r.lines.Scan() {
		if line := r.lines.Text(); strings.HasPrefix(line, `{"type":"response"`) {
			return line
		}
	}
	r.t.Fatal("rpc output ended before a response")
	return ""
}
