package transcript

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
)

// What the chat and /tree say of one stored entry, decoded as the
// transcript decodes it. /tree names entries as pi's tree does: tool
// calls as the text they are ([bash: echo oops >&2], [read: path]),
// records by what they are ([model: …], [thinking: …], [custom:
// customType], [compaction: …], [branch summary]: …).

// searchMax bounds the bytes of an entry's text that /tree's search
// looks in besides its line (pi's tree looks in the first 200 characters
// of a message).
const searchMax = 1000

// UserText returns what the user typed in a user entry, without the
// files attached to it ("" for other entries).
func UserText(e sessions.Entry) string {
	if e.Type != sessions.TypeUser {
		return ""
	}
	it := &item{kind: kindUser, entry: &e}
	it.decode()
	return it.text
}

// EntryText says in one line what an entry holds, as /tree lists it (a
// tool result without the tree around it names its tool only).
func EntryText(e sessions.Entry) string {
	line, _ := TreeText(sessions.TreeEntry{Entry: e}, nil)
	return line
}

// TreeText says what an entry of /tree holds: line is its row, one line
// shown as text; search is the text /tree's search looks in (the line,
// the kind of entry, its message up to searchMax bytes). byID finds
// another entry of the tree (nil: none): a tool result names its call
// from the answer above it that made it.
func TreeText(te sessions.TreeEntry, byID func(string) (sessions.TreeEntry, bool)) (line, search string) {
	if te.PiOnly {
		return piOnlyText(te)
	}
	e := te.Entry
	switch e.Type {
	case sessions.TypeUser:
		it := decoded(kindUser, e)
		line = "you: " + firstLine(it.text)
		if note := it.attachedNote(); note != "" {
			line += " " + note
		}
		return line, "you user " + line + " " + clip(it.text)
	case sessions.TypeAssistant:
		it := decoded(kindAssistant, e)
		switch {
		case strings.TrimSpace(it.text) != "":
			line = "pi: " + firstLine(strings.TrimSpace(it.text))
		case it.args != "":
			line = "pi: " + callsText(e)
		case it.aborted:
			line = "pi: (aborted)"
		case it.errText != "":
			line = "pi: ✗ " + firstLine(it.errText)
		default:
			line = "pi: (no content)"
		}
		return line, "pi assistant " + line + " " + clip(it.text)
	case sessions.TypeToolResult:
		it := decoded(kindTool, e)
		line = callText(it.tool, callFor(te, it.callID, byID), it.path) + " " + resultText(it)
		return line, "tool " + line + " " + clip(it.result)
	case sessions.TypeCompaction:
		var c sessions.Compaction
		json.Unmarshal(e.Payload(), &c)
		line = fmt.Sprintf("[compaction: %dk tokens]", (c.TokensBefore+500)/1000)
		if s := firstLine(strings.TrimSpace(c.Summary)); s != "" {
			line += " " + s
		}
		return line, line + " " + clip(c.Summary)
	case sessions.TypeModelChange:
		var mc struct {
			Model string `json:"model"`
		}
		json.Unmarshal(e.Payload(), &mc)
		line = "[model: " + common.VisibleLine(mc.Model) + "]"
		return line, line
	case sessions.TypeCustom:
		var r struct {
			Kind          string `json:"kind"`
			ThinkingLevel string `json:"thinkingLevel"`
		}
		if json.Unmarshal(e.Payload(), &r) == nil && r.Kind == "thinking_level_change" && te.CustomType == "" {
			line = "[thinking: " + common.VisibleLine(r.ThinkingLevel) + "]"
			return line, line
		}
		return customText(te.CustomType), customText(te.CustomType)
	}
	line = "[" + common.VisibleLine(e.Type) + "]"
	return line, line
}

// piOnlyText names the entries only pi's tree shows, as it does.
func piOnlyText(te sessions.TreeEntry) (line, search string) {
	text := firstLine(strings.TrimSpace(te.Text))
	switch te.Type {
	case "branch_summary":
		line = "[branch summary]: " + text
	case "custom_message":
		line = "[" + common.VisibleLine(te.CustomType) + "]: " + text
	case "custom":
		line = customText(te.CustomType)
	case "bashExecution":
		line = "[bash]: " + common.VisibleLine(strings.TrimSpace(te.Text))
	default:
		line = "[" + common.VisibleLine(te.Type) + "]"
		if text != "" {
			line += ": " + text
		}
	}
	return line, line + " " + clip(te.Text)
}

func customText(customType string) string {
	if customType == "" {
		return "[custom]"
	}
	return "[custom: " + common.VisibleLine(customType) + "]"
}

// decoded is a stored entry decoded as an item of kind.
func decoded(kind itemKind, e sessions.Entry) *item {
	it := &item{kind: kind, entry: &e}
	it.decode()
	return it
}

// callFor returns the arguments of call id, from the nearest answer above
// te in the tree that made it: a stored tool result does not repeat them
// ("" when none does, or without a tree). The walk stops at the user's
// message that started the turn.
func callFor(te sessions.TreeEntry, id string, byID func(string) (sessions.TreeEntry, bool)) string {
	if byID == nil || id == "" {
		return ""
	}
	for p, steps := te.Parent, 0; p != "" && steps < 1000; steps++ {
		up, ok := byID(p)
		if !ok || up.Type == sessions.TypeUser {
			return ""
		}
		if up.Type == sessions.TypeAssistant && !up.PiOnly {
			if args := callArgs(&item{entry: &up.Entry}, id); args != "" {
				return args
			}
		}
		p = up.Parent
	}
	return ""
}

// callsText names the calls an answer made, as pi's tree names a call.
func callsText(e sessions.Entry) string {
	var sm entries.StoredMessage
	json.Unmarshal(e.Payload(), &sm)
	var out []string
	for _, p := range sm.Message.Parts {
		if p.Type == provider.PartToolCall {
			out = append(out, callText(p.ToolName, string(p.Arguments), ""))
		}
	}
	return strings.Join(out, " ")
}

// callText names a tool call as pi's tree does: [bash: the command],
// [read: path:from-to], [grep: /pattern/ in path], …, another tool by its
// arguments. path is what the result recorded, used when the arguments
// are not known.
func callText(tool, args, path string) string {
	var a map[string]any
	json.Unmarshal([]byte(args), &a)
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := a[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	or := func(s, dflt string) string {
		if s == "" {
			return dflt
		}
		return s
	}
	var what string
	switch tool {
	case "read":
		what = or(str("path", "file_path"), path) + readRange(a["offset"], a["limit"])
	case "write", "edit":
		what = or(str("path", "file_path"), path)
	case "bash":
		what = strings.TrimSpace(str("command"))
	case "grep":
		what = "/" + str("pattern") + "/ in " + or(str("path"), ".")
	case "find":
		what = str("pattern") + " in " + or(str("path"), ".")
	case "ls":
		what = or(str("path"), or(path, "."))
	default:
		what = args
		if r := []rune(what); len(r) > 60 {
			what = string(r[:59]) + "…"
		}
	}
	if what == "" {
		return "[" + common.VisibleLine(tool) + "]"
	}
	return "[" + common.VisibleLine(tool) + ": " + common.VisibleLine(what) + "]"
}

// readRange is a read's lines as pi's tree says them: ":10" from line
// 10, ":10-29" for 20 lines from it ("" for the whole file).
func readRange(offset, limit any) string {
	num := func(v any) (int, bool) {
		f, ok := v.(float64)
		return int(f), ok && f >= 1
	}
	from, hasFrom := num(offset)
	n, hasN := num(limit)
	switch {
	case !hasFrom && !hasN:
		return ""
	case !hasFrom:
		from = 1
	}
	if !hasN {
		return fmt.Sprintf(":%d", from)
	}
	return fmt.Sprintf(":%d-%d", from, from+n-1)
}

// resultText is how a stored call ended, for its row: ✓ and its output's
// first line, or ✗ and why (a denial with the user's reason; a command's
// exit status, its last line; the reason a call did not run, its first).
func resultText(it *item) string {
	if it.status != "error" {
		return "✓ " + firstLine(strings.TrimSpace(it.result))
	}
	if reason, denied := entries.DeniedReason(it.tool, it.result); denied {
		if reason == "" {
			return "✗ denied"
		}
		return "✗ denied: " + common.VisibleLine(reason)
	}
	text := strings.TrimSpace(it.result)
	if it.ran() {
		// A command's exit status is its last line; a call that never
		// ran has its reason first.
		text = text[strings.LastIndexByte(text, '\n')+1:]
	}
	return "✗ " + firstLine(text)
}

// clip is s up to searchMax bytes, for a search to look in.
func clip(s string) string {
	if len(s) > searchMax {
		return s[:searchMax]
	}
	return s
}

// firstLine is s's first line, shown as text.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return common.VisibleLine(line)
}
