package transcript

import (
	"strings"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
)

// What the chat and /tree say of one stored entry, decoded as the
// transcript decodes it.

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

// EntryText says in one line what an entry holds, as /tree lists it.
func EntryText(e sessions.Entry) string {
	it := &item{entry: &e}
	switch e.Type {
	case sessions.TypeUser:
		it.kind = kindUser
	case sessions.TypeAssistant:
		it.kind = kindAssistant
	case sessions.TypeToolResult:
		it.kind = kindTool
	case sessions.TypeCompaction:
		it.kind = kindCompaction
	default:
		return e.Type
	}
	it.decode()
	switch it.kind {
	case kindUser:
		if note := it.attachedNote(); note != "" {
			return "you: " + firstLine(it.text) + " " + note
		}
		return "you: " + firstLine(it.text)
	case kindAssistant:
		if it.text == "" && it.args != "" {
			return "pi: (calls " + firstLine(it.args) + ")"
		}
		return "pi: " + firstLine(it.text)
	case kindTool:
		return "tool " + it.tool + ": " + firstLine(it.result)
	}
	return "compaction: " + firstLine(it.text)
}

// firstLine is s's first line, shown as text.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return common.VisibleLine(line)
}
