package toolpolicy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pi-tui/pi-tui/core/memory"
)

// The remember tool: the agent adds, replaces or removes an entry of its
// project's memory (ADR 0022). The host offers it only to a trusted
// project whose agent-writes switch is on, and checks both again at each
// write; the agent only names the change.

// ToolRemember names the tool.
const ToolRemember = "remember"

// MemoryWriter is the host side of the remember tool: it writes the bound
// project's memory (compare-and-swap, the 32 KiB limit) and says what it
// did. Its errors are one sentence, shown to the model as they are.
type MemoryWriter interface {
	Remember(ctx context.Context, op memory.Op) (memory.Change, error)
}

var rememberSpec = toolSpec{name: ToolRemember,
	desc: "Save a note to this project's memory: notes the user reads and edits, which every later session of the project receives in its system prompt. " +
		"Keep notes short and lasting (conventions, commands, decisions), never secrets or passing state. " +
		"add makes a new entry; replace and remove change one, named by its id (given in earlier results) or by text only it contains. The user sees every change and can undo it.",
	schema: `{"type":"object","properties":{"action":{"type":"string","enum":["add","replace","remove"]},` +
		`"id":{"type":"string","description":"replace/remove: the entry's id"},` +
		`"match":{"type":"string","description":"replace/remove, instead of id: text that only that entry contains"},` +
		`"title":{"type":"string","description":"optional short heading"},` +
		`"content":{"type":"string","description":"the note (add: required; replace: the new text)"}},"required":["action"]}`}

// Remember runs a remember call (its JSON arguments) against w, as both
// engines' remember tool does: the text the model reads, and the change
// made (nil when none). A failure is an error whose text the model reads.
func Remember(ctx context.Context, w MemoryWriter, raw json.RawMessage) (string, *memory.Change, error) {
	if w == nil {
		return "", nil, errors.New("this project's memory is not open to the agent")
	}
	var a struct {
		Action  string  `json:"action"`
		ID      string  `json:"id"`
		Match   string  `json:"match"`
		Title   *string `json:"title"`
		Content string  `json:"content"`
	}
	if err := DecodeArgs(raw, &a); err != nil {
		return "", nil, err
	}
	ch, err := w.Remember(ctx, memory.Op{Action: a.Action, ID: a.ID, Match: a.Match, Title: a.Title, Content: a.Content})
	if errors.Is(err, memory.ErrConflict) {
		err = errors.New("the memory kept changing while it was saved (the user is editing it); nothing was saved: try again later")
	}
	if err != nil {
		return "", nil, fmt.Errorf("not saved: %w", err)
	}
	text := "Saved to project memory: " + ch.Summary() + "."
	if ch.Action != memory.ActionRemove {
		text += " Later sessions of this project receive it."
	}
	return text, &ch, nil
}
