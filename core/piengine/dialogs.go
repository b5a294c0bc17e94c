package piengine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/events"
)

// UIRequest is an extension's dialog (pi's extension_ui_request with
// method select, confirm, input or editor).
type UIRequest struct {
	ID          string
	Method      string // "select", "confirm", "input", "editor"
	Title       string
	Message     string   // confirm's question
	Options     []string // select's choices
	Placeholder string   // input's
	Prefill     string   // editor's
	// Timeout is how long pi waits for the answer before it resolves the
	// dialog itself (0: it waits as long as it takes); the hook's context
	// ends then.
	Timeout time.Duration
}

// UIResponse answers a dialog: Value (select, input, editor), Confirmed
// (confirm), or Cancelled for any.
type UIResponse struct {
	Value     string
	Confirmed bool
	Cancelled bool
}

// extensionUI handles an extension_ui_request: a dialog goes to the
// hook on a goroutine of its own (it may take as long as the user), a
// display request becomes an event.
func (c *core) extensionUI(rec *Record) {
	sid := c.cfg.SessionID
	switch rec.Method {
	case "select", "confirm", "input", "editor":
		// Bounded: an extension asking faster than anyone answers gets
		// its extra dialogs cancelled, not a goroutine each.
		select {
		case c.dialogs <- struct{}{}:
			go func() {
				defer func() { <-c.dialogs }()
				c.dialog(rec)
			}()
		default:
			c.publish(events.Notice{SessionID: sid, Level: "warning", Source: "pi-tui",
				Text: fmt.Sprintf("an extension asked more than %d questions at once: this %s dialog was cancelled", maxDialogs, rec.Method)})
			c.answerCancelled(rec.ID)
		}
	case "notify":
		level := rec.NotifyType
		if level != "warning" && level != "error" {
			level = "info"
		}
		c.publish(events.Notice{SessionID: sid, Level: level, Source: "extension", Text: oneLine(messageText(rec.Message))})
	case "setStatus":
		c.publish(events.ExtensionStatus{SessionID: sid, Method: rec.Method, Key: rec.StatusKey, Text: rec.StatusText})
	case "setWidget":
		c.publish(events.ExtensionStatus{SessionID: sid, Method: rec.Method, Key: rec.WidgetKey, Lines: rec.WidgetLines, Placement: rec.WidgetPlacement})
	case "setTitle":
		c.publish(events.ExtensionStatus{SessionID: sid, Method: rec.Method, Text: rec.Title})
	case "set_editor_text":
		c.publish(events.ExtensionStatus{SessionID: sid, Method: rec.Method, Text: rec.Text})
	}
}

// messageText reads an extension UI request's "message" (a JSON string).
func messageText(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

type uiResponse struct {
	Type      string  `json:"type"`
	ID        string  `json:"id"`
	Value     *string `json:"value,omitempty"`
	Confirmed *bool   `json:"confirmed,omitempty"`
	Cancelled bool    `json:"cancelled,omitempty"`
}

func (c *core) dialog(rec *Record) {
	req := UIRequest{ID: rec.ID, Method: rec.Method, Title: rec.Title, Message: messageText(rec.Message), Options: rec.Options,
		Placeholder: rec.Placeholder, Prefill: rec.Prefill, Timeout: time.Duration(rec.Timeout) * time.Millisecond}
	var ctx context.Context
	var cancel context.CancelFunc
	if req.Timeout > 0 {
		ctx, cancel = context.WithTimeout(c.life, req.Timeout)
	} else {
		ctx, cancel = context.WithCancel(c.life)
	}
	defer cancel()
	var ans UIResponse
	if c.cfg.ExtensionUI == nil {
		ans.Cancelled = true
		c.publish(events.Notice{SessionID: c.cfg.SessionID, Level: "warning", Source: "pi-tui",
			Text: "an extension's " + req.Method + " dialog (" + oneLine(strings.TrimSpace(req.Title)) + ") was cancelled: nothing shows dialogs here"})
	} else {
		ans = c.cfg.ExtensionUI(ctx, req)
	}
	if ctx.Err() != nil {
		return // pi resolved it (timeout) or is gone
	}
	out := uiResponse{Type: "extension_ui_response", ID: req.ID}
	switch {
	case ans.Cancelled:
		out.Cancelled = true
	case req.Method == "confirm":
		out.Confirmed = &ans.Confirmed
	default:
		out.Value = &ans.Value
	}
	_ = c.rpc.Send(ctx, out)
}

// maxDialogs bounds the extension dialogs open at once.
const maxDialogs = 8

// answerCancelled tells pi that dialog id was cancelled.
func (c *core) answerCancelled(id string) {
	_ = c.rpc.Send(c.life, uiResponse{Type: "extension_ui_response", ID: id, Cancelled: true})
}
