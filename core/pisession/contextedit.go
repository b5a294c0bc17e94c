package pisession

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ContextEdit is a context_edit entry's payload (pi 1.x): from here on the
// branch, TargetID's entry reaches the model with other content, or not at
// all. The target's own line never changes, so the conversation shown, its
// exports and its counts keep the original; only what is sent changes.
type ContextEdit struct {
	TargetID string
	// Omit is set when replacement is null: the target sends nothing.
	Omit bool
	// Content is the replacement content as stored: a JSON string or an
	// array of parts ("[]" when the replacement gives none).
	Content json.RawMessage
}

var errNoReplacement = errors.New("it has no replacement (null omits the target; an object replaces its content)")

// ContextEdit decodes a context_edit entry the way pi reads one. pi reads
// replacement.content whatever replacement is, so a replacement that is
// not an object, or has no content, stands for empty content. What pi
// itself cannot read (no string targetId, no replacement at all, content
// that is neither a string, an array of parts nor null) is an error: such
// an edit is ignored.
func (e Entry) ContextEdit() (ContextEdit, error) {
	var ce ContextEdit
	if err := e.want(TypeContextEdit); err != nil {
		return ce, err
	}
	id, ok := e.StringMember("targetId")
	if !ok {
		return ce, fmt.Errorf("context_edit %s: targetId is not a string", e.ID)
	}
	ce.TargetID = id
	rep := e.Member("replacement")
	switch {
	case rep == nil:
		return ce, fmt.Errorf("context_edit %s: %w", e.ID, errNoReplacement)
	case isNull(rep):
		ce.Omit = true
		return ce, nil
	}
	c := findMember(rep, "content") // nil when rep is not an object
	if c == nil || isNull(c) {
		ce.Content = json.RawMessage("[]")
		return ce, nil
	}
	var check Content
	if err := json.Unmarshal(c, &check); err != nil {
		return ce, fmt.Errorf("context_edit %s: its replacement content is neither text nor parts: %w", e.ID, err)
	}
	ce.Content = json.RawMessage(c)
	return ce, nil
}

// replacedContent is the content an edit gives a message of role: a string
// stays a string for user and custom messages (pi's user content may be
// one) and becomes one text part for assistant and tool results, whose
// content pi always sends as parts.
func (ce ContextEdit) replacedContent(role string) (json.RawMessage, error) {
	if len(ce.Content) == 0 || ce.Content[0] != '"' || (role != RoleAssistant && role != RoleToolResult) {
		return ce.Content, nil
	}
	var text string
	if err := json.Unmarshal(ce.Content, &text); err != nil {
		return nil, err
	}
	return jsonMarshal(PartsContent(Part{Type: PartText, Text: text}))
}
