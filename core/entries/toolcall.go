package entries

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/pi-tui/pi-tui/internal/safetext"
)

// A tool call's arguments as pi shows a tool it has no display of its own
// for (an extension's, an MCP server's): key=value, each value as JSON
// (docs/adr/0065-tools-as-pi-defines-them.md). pi-tui orders them by the
// tool's schema, so a call reads the same whatever order the model wrote.

// ToolArg is one argument of a call: its name and its JSON value.
type ToolArg struct {
	Key   string
	Value json.RawMessage
}

// ToolArgs splits a call's arguments (a JSON object) into its members:
// those params names first, in that order (the tool schema's properties),
// then the others in the order the call gave them. Arguments that are not
// an object are one member, "args", as pi shows them.
func ToolArgs(raw json.RawMessage, params []string) []ToolArg {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var args []ToolArg
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return []ToolArg{{Key: "args", Value: raw}}
	}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		var v json.RawMessage
		if err != nil || !ok || dec.Decode(&v) != nil {
			return []ToolArg{{Key: "args", Value: raw}}
		}
		args = append(args, ToolArg{Key: key, Value: v})
	}
	rank := func(k string) int {
		if i := slices.Index(params, k); i >= 0 {
			return i
		}
		return len(params)
	}
	slices.SortStableFunc(args, func(a, b ToolArg) int { return rank(a.Key) - rank(b.Key) })
	return args
}

// argValueMax bounds one value in ArgsLine, in runes.
const argValueMax = 60

// ArgsLine is a call's arguments on one line, as pi's tool line has them:
// key=value joined by spaces, each value as compact JSON (a string
// quoted), a value longer than argValueMax and the line longer than max
// runes cut with "…", control characters shown, never sent.
func ArgsLine(args []ToolArg, max int) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		parts = append(parts, a.Key+"="+cut(compactJSON(a.Value), argValueMax))
	}
	return cut(safetext.VisibleLine(strings.Join(parts, " ")), max)
}

// ArgText is a value whole, as an approval shows it: a string's own text
// (its lines), any other value as compact JSON. The caller makes its
// control characters visible.
func ArgText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return compactJSON(v)
}

// compactJSON is v without the spaces between its tokens; its strings,
// keys and their order as the call wrote them.
func compactJSON(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// cut keeps s to n runes, the last one an ellipsis when it was longer.
func cut(s string, n int) string {
	if r := []rune(s); n > 0 && len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
