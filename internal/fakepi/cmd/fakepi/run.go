package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/internal/fakepi"
)

var usage = obj{"input": 10, "output": 3, "cacheRead": 2, "cacheWrite": 1, "totalTokens": 16,
	"cost": obj{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}

func now() int64 { return time.Now().UnixMilli() }

func (f *fake) nextReply() fakepi.Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.replyIdx >= len(f.script.Replies) {
		return fakepi.Reply{Text: "ok"}
	}
	r := f.script.Replies[f.replyIdx]
	f.replyIdx++
	return r
}

func (f *fake) isAborted() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.aborted
}

// run plays one prompt, as pi's agent loop does, to agent_settled.
func (f *fake) run(prompt string) {
	system := f.bridge.system()
	f.emit(obj{"type": "agent_start"})
	for _, line := range f.extra {
		f.raw(line)
	}
	f.extra = nil
	user := prompt
	aborted := false
	first := true
	for {
		f.emit(obj{"type": "turn_start"})
		if first && system != "" {
			sys := obj{"role": "system", "content": "", "sections": obj{"preamble": "You are fakepi.", "pi_tui": system}, "timestamp": now()}
			f.emit(obj{"type": "message_start", "message": sys})
			f.emit(obj{"type": "message_end", "message": sys})
			f.sess.append(obj{"type": "message", "message": sys})
		}
		first = false
		if user != "" {
			um := obj{"role": "user", "content": []any{obj{"type": "text", "text": user}}, "timestamp": now()}
			f.emit(obj{"type": "message_start", "message": um})
			f.emit(obj{"type": "message_end", "message": um})
			f.sess.append(obj{"type": "message", "message": um})
			user = ""
		}
		reply := f.nextReply()
		tools, stop := f.assistant(reply)
		if stop == "aborted" {
			aborted = true
			f.emit(obj{"type": "turn_end", "toolResults": []any{}})
			break
		}
		for _, t := range tools {
			f.tool(t)
		}
		f.emit(obj{"type": "turn_end", "toolResults": []any{}})
		if f.isAborted() {
			aborted = true
			break
		}
		if len(tools) > 0 {
			continue
		}
		f.mu.Lock()
		switch {
		case len(f.steering) > 0:
			user, f.steering = f.steering[0], f.steering[1:]
		case len(f.followUp) > 0:
			user, f.followUp = f.followUp[0], f.followUp[1:]
		}
		s, fu := nonNil(f.steering), nonNil(f.followUp)
		f.mu.Unlock()
		if user == "" {
			break
		}
		f.emit(obj{"type": "queue_update", "steering": s, "followUp": fu})
	}
	f.emit(obj{"type": "agent_end", "messages": []any{}, "willRetry": false})
	f.mu.Lock()
	f.running = false
	f.mu.Unlock()
	f.emit(obj{"type": "agent_settled", "aborted": aborted})
}

// assistant streams one reply and returns its tool calls and stop reason.
func (f *fake) assistant(r fakepi.Reply) ([]fakepi.Tool, string) {
	if r.Retry {
		f.emit(obj{"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 5, "errorMessage": "529 overloaded"})
		f.emit(obj{"type": "auto_retry_end", "success": true, "attempt": 1})
	}
	if r.Notify != "" {
		f.emit(obj{"type": "extension_ui_request", "id": f.uiID(), "method": "notify", "message": r.Notify, "notifyType": "warning"})
		f.emit(obj{"type": "extension_ui_request", "id": f.uiID(), "method": "setStatus", "statusKey": "fake", "statusText": r.Notify})
	}
	if r.ExtensionError != "" {
		f.emit(obj{"type": "extension_error", "extensionPath": "/ext/fake.ts", "event": "turn_start", "error": r.ExtensionError})
	}
	text := r.Text
	for _, u := range r.UI {
		text += " [ui:" + f.ask(u) + "]"
	}
	partial := obj{"role": "assistant", "content": []any{}, "api": "fake", "provider": "fake", "model": "fake-model", "usage": usage, "stopReason": "pending", "timestamp": now()}
	f.emit(obj{"type": "message_start", "message": partial})
	if r.Thinking != "" {
		f.emit(obj{"type": "message_update", "usage": usage, "assistantMessageEvent": obj{"type": "thinking_delta", "contentIndex": 0, "delta": r.Thinking}})
	}
	sent := ""
	for i, piece := range splitKeep(text) {
		f.emit(obj{"type": "message_update", "usage": usage, "assistantMessageEvent": obj{"type": "text_delta", "contentIndex": 0, "delta": piece}})
		sent += piece
		if i == 0 && (r.Hold > 0 || r.HoldAbort) {
			f.hold(r)
		}
		if f.isAborted() {
			break
		}
	}
	var content []any
	if sent != "" {
		content = append(content, obj{"type": "text", "text": sent})
	}
	stop := "stop"
	if f.isAborted() {
		stop = "aborted"
	} else {
		for _, t := range r.Tools {
			content = append(content, obj{"type": "toolCall", "id": t.ID, "name": t.Name, "arguments": t.Args})
		}
		if len(r.Tools) > 0 {
			stop = "toolUse"
		}
		if r.Error != "" {
			stop = "error"
		}
	}
	msg := obj{"role": "assistant", "content": nonNilAny(content), "api": "fake", "provider": "fake", "model": "fake-model", "usage": usage, "stopReason": stop, "timestamp": now()}
	if stop == "error" {
		msg["errorMessage"] = r.Error
	}
	if stop == "aborted" {
		msg["errorMessage"] = "Request was aborted"
	}
	f.emit(obj{"type": "message_end", "message": msg})
	f.sess.append(obj{"type": "message", "message": msg})
	if stop != "toolUse" {
		return nil, stop
	}
	return r.Tools, stop
}

func nonNilAny(a []any) []any {
	if a == nil {
		return []any{}
	}
	return a
}

// splitKeep splits text after each space, keeping the spaces.
func splitKeep(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// hold waits until the reply's queue commands or an abort arrived.
func (f *fake) hold(r fakepi.Reply) {
	for {
		f.mu.Lock()
		done := f.aborted || (!r.HoldAbort && f.queued >= r.Hold)
		f.mu.Unlock()
		if done {
			return
		}
		<-f.wake
	}
}

func (f *fake) uiID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextUI++
	return fmt.Sprintf("ui-%d", f.nextUI)
}

// ask sends a dialog and waits for its answer (or its timeout, as pi
// resolves it itself).
func (f *fake) ask(u fakepi.UI) string {
	id := f.uiID()
	ch := make(chan map[string]any, 1)
	f.mu.Lock()
	f.dialogs[id] = ch
	f.mu.Unlock()
	req := obj{"type": "extension_ui_request", "id": id, "method": u.Method, "title": u.Title}
	if u.Options != nil {
		req["options"] = u.Options
	}
	if u.Method == "confirm" {
		req["message"] = "Really?"
	}
	var timeout <-chan time.Time
	if u.TimeoutMs > 0 {
		req["timeout"] = u.TimeoutMs
		timeout = time.After(time.Duration(u.TimeoutMs) * time.Millisecond)
	}
	f.emit(req)
	select {
	case ans := <-ch:
		if ans["cancelled"] == true {
			return "cancelled"
		}
		if c, ok := ans["confirmed"].(bool); ok {
			return fmt.Sprint("confirmed=", c)
		}
		return "value=" + str(ans["value"])
	case <-timeout:
		f.mu.Lock()
		delete(f.dialogs, id)
		f.mu.Unlock()
		return "timeout"
	}
}

// tool runs one tool call through the bridge's gate, as pi with the
// bridge does.
func (f *fake) tool(t fakepi.Tool) {
	args, _ := json.Marshal(t.Args)
	f.emit(obj{"type": "tool_execution_start", "toolCallId": t.ID, "toolName": t.Name, "args": json.RawMessage(args)})
	start := time.Now()
	var text string
	var isErr bool
	if block, reason := f.bridge.toolCall(t); block {
		text, isErr = reason, true
	} else {
		text, isErr = f.execute(t)
	}
	content := []any{obj{"type": "text", "text": text}}
	app, entry := f.bridge.toolResult(t, isErr, content)
	if app != "" {
		content = append(content, obj{"type": "text", "text": app})
	}
	if entry != nil {
		e := f.sess.append(obj{"type": "custom", "customType": entry["customType"], "data": entry["data"]})
		f.emit(obj{"type": "entry_appended", "entry": e})
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	f.emit(obj{"type": "tool_execution_end", "toolCallId": t.ID, "toolName": t.Name, "result": obj{"content": content}, "isError": isErr, "durationMs": ms})
	tr := obj{"role": "toolResult", "toolCallId": t.ID, "toolName": t.Name, "content": content, "isError": isErr, "timestamp": now()}
	f.emit(obj{"type": "message_start", "message": tr})
	f.emit(obj{"type": "message_end", "message": tr})
	f.sess.append(obj{"type": "message", "message": tr})
}

// execute runs read, write and bash in the working directory (through
// os.Root for the file tools), and remember through the bridge.
func (f *fake) execute(t fakepi.Tool) (string, bool) {
	path := str(t.Args["path"])
	switch t.Name {
	case "read", "write":
		root, err := os.OpenRoot(".")
		if err != nil {
			return err.Error(), true
		}
		defer root.Close()
		if t.Name == "read" {
			b, err := root.ReadFile(path)
			if err != nil {
				return err.Error(), true
			}
			return string(b), false
		}
		if err := root.WriteFile(path, []byte(str(t.Args["content"])), 0o644); err != nil {
			return err.Error(), true
		}
		return "Successfully wrote " + path, false
	case "bash":
		cmd := str(t.Args["command"])
		out, err := exec.Command("sh", "-c", cmd).CombinedOutput()
		f.emit(obj{"type": "tool_execution_update", "toolCallId": t.ID, "toolName": t.Name, "args": t.Args, "partialResult": obj{"content": []any{obj{"type": "text", "text": string(out)}}}})
		if err != nil {
			// As pi 1.6's bash ends a failed command's result: its output,
			// then the status on a line of its own.
			status := err.Error()
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() >= 0 {
				status = fmt.Sprintf("Command exited with code %d", ee.ExitCode())
			}
			text := string(out)
			if text == "" {
				text = "(no output)"
			}
			return text + "\n\n" + status, true
		}
		return string(out), false
	case "remember":
		return f.bridge.remember(t.Args)
	}
	return "Tool " + t.Name + " not found", true
}
