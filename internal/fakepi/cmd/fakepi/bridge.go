package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"

	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// bridge plays pi-tui's bridge extension: the channel to the host from
// PI_TUI_BRIDGE_SOCKET, hello with PI_TUI_BRIDGE_TOKEN, then one request
// at a time. A nil or broken bridge fails closed, as the real one does.
type bridge struct {
	mu          sync.Mutex
	conn        net.Conn
	in          *bufio.Reader
	next        int
	canRemember bool
	broken      bool
}

func (f *fake) connectBridge() error {
	sock := os.Getenv("PI_TUI_BRIDGE_SOCKET")
	if sock == "" {
		return nil
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		f.bridge = &bridge{broken: true}
		return err
	}
	b := &bridge{conn: conn, in: bufio.NewReaderSize(conn, 1<<16)}
	hello, _ := json.Marshal(obj{"type": "hello", "token": os.Getenv("PI_TUI_BRIDGE_TOKEN"), "protocol": 1, "piVersion": "1.6.0", "pid": os.Getpid()})
	if _, err := conn.Write(append(hello, '\n')); err != nil {
		b.broken = true
		f.bridge = b
		return err
	}
	line, err := b.in.ReadBytes('\n')
	var w struct {
		Type, Error string
		Remember    bool
	}
	if err == nil {
		err = json.Unmarshal(line, &w)
	}
	if err == nil && w.Type != "welcome" {
		err = errors.New("refused: " + w.Error)
	}
	if err != nil {
		b.broken = true
		f.bridge = b
		return err
	}
	b.canRemember = w.Remember
	f.bridge = b
	if _, err := b.call("trust", obj{"cwd": "."}); err != nil {
		fmt.Fprintln(os.Stderr, "fakepi: bridge trust:", err)
	}
	return nil
}

// call sends one request and waits for its answer.
func (b *bridge) call(method string, params obj) (map[string]any, error) {
	if b == nil {
		return nil, errors.New("no bridge")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broken {
		return nil, errors.New("pi-tui's host is gone")
	}
	b.next++
	req, _ := json.Marshal(obj{"id": b.next, "method": method, "params": params})
	if _, err := b.conn.Write(append(req, '\n')); err != nil {
		b.broken = true
		fmt.Fprintln(os.Stderr, "fakepi: the pi-tui host is gone:", err)
		return nil, errors.New("pi-tui's host is gone")
	}
	line, err := b.in.ReadBytes('\n')
	if err != nil {
		b.broken = true
		fmt.Fprintln(os.Stderr, "fakepi: the pi-tui host is gone:", err)
		return nil, errors.New("pi-tui's host is gone")
	}
	var resp struct {
		ID     int
		Result map[string]any
		Error  string
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return nil, err
	}
	if resp.Error != "" {
		return nil, errors.New(resp.Error)
	}
	return resp.Result, nil
}

func (b *bridge) system() string {
	if b == nil {
		return ""
	}
	r, err := b.call("system", obj{})
	if err != nil {
		return ""
	}
	return str(r["text"])
}

// toolCall asks the host's gate; without a bridge every call runs, with
// a broken one none does.
func (b *bridge) toolCall(t fakepi.Tool) (bool, string) {
	if b == nil {
		return false, ""
	}
	r, err := b.call("tool_call", obj{"toolCallId": t.ID, "toolName": t.Name, "input": t.Args})
	if err != nil {
		return true, err.Error()
	}
	if r["block"] == true {
		return true, str(r["reason"])
	}
	return false, ""
}

func (b *bridge) toolResult(t fakepi.Tool, isErr bool, content []any) (string, map[string]any) {
	if b == nil {
		return "", nil
	}
	r, err := b.call("tool_result", obj{"toolCallId": t.ID, "toolName": t.Name, "input": t.Args, "isError": isErr, "content": content})
	if err != nil {
		return "", nil
	}
	entry, _ := r["entry"].(map[string]any)
	return str(r["append"]), entry
}

func (b *bridge) remember(input map[string]any) (string, bool) {
	if b == nil || !b.canRemember {
		return "Tool remember not found", true
	}
	r, err := b.call("remember", obj{"input": input})
	if err != nil {
		return err.Error(), true
	}
	return str(r["text"]), r["isError"] == true
}
