package piengine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// DefaultMaxLine bounds one line of pi's stdout. A longer line is skipped
// (with an error record), never kept: pi's records are small except a
// get_messages or get_entries of a big session, and a tool result's image.
const DefaultMaxLine = 32 << 20

// Record is one line of pi's stdout: a response, a session event or an
// extension UI request. Only the members pi-tui reads are decoded; the
// rest (a message_update's usage, whole messages) stay raw or unread.
type Record struct {
	Type string `json:"type"`

	// Responses (type "response"), and extension UI requests' id.
	ID      string          `json:"id"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Error   string          `json:"error"` // a response's error; extension_error's message
	Data    json.RawMessage `json:"data"`

	// message_update.
	AssistantMessageEvent *struct {
		Type  string `json:"type"`
		Delta string `json:"delta"`
	} `json:"assistantMessageEvent"`
	// message_start, message_end (a message); extension UI requests (a
	// string).
	Message json.RawMessage `json:"message"`

	// tool_execution_*.
	ToolCallID    string          `json:"toolCallId"`
	ToolName      string          `json:"toolName"`
	Args          json.RawMessage `json:"args"`
	PartialResult json.RawMessage `json:"partialResult"`
	Result        json.RawMessage `json:"result"` // also compaction_end's
	IsError       bool            `json:"isError"`
	DurationMs    float64         `json:"durationMs"`

	// queue_update.
	Steering []string `json:"steering"`
	FollowUp []string `json:"followUp"`

	// auto_retry_*, compaction_*, agent_settled.
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
	FinalError   string `json:"finalError"`
	Reason       string `json:"reason"`
	Aborted      bool   `json:"aborted"`

	// extension_error.
	ExtensionPath string `json:"extensionPath"`
	Event         string `json:"event"`

	// extension_ui_request.
	Method          string   `json:"method"`
	Title           string   `json:"title"`
	Options         []string `json:"options"`
	Placeholder     string   `json:"placeholder"`
	Prefill         string   `json:"prefill"`
	Timeout         int64    `json:"timeout"`
	NotifyType      string   `json:"notifyType"`
	StatusKey       string   `json:"statusKey"`
	StatusText      string   `json:"statusText"`
	WidgetKey       string   `json:"widgetKey"`
	WidgetLines     []string `json:"widgetLines"`
	WidgetPlacement string   `json:"widgetPlacement"`
	Text            string   `json:"text"`
}

// recProtocol is the type of the records the client makes itself for
// lines it could not take (too long, not JSON); Error says why.
const recProtocol = "pi-tui:protocol_error"

// ProtocolError is a response with success false: pi refused a command.
type ProtocolError struct {
	Command, Message string
}

func (e *ProtocolError) Error() string { return "pi refused " + e.Command + ": " + e.Message }

// client speaks pi's RPC over one process's stdin and stdout: commands
// with unique string ids, responses matched to them, every other record
// handed in order to one handler. One goroutine reads and decodes lines,
// one dispatches them, one writes; none of them ever waits for a caller.
type client struct {
	handle  func(*Record) // on the dispatch goroutine, in stdout order
	onEnd   func() error  // after the last record: why the stream ended
	maxLine int

	writes chan []byte   // to the writer goroutine
	gone   chan struct{} // closed once the client failed

	mu      sync.Mutex
	pending map[string]chan callResult
	next    uint64
	err     error // set once: every call fails with it from then on
	queue   []*Record
	ended   bool // the reader is done; nothing more is queued
	signal  chan struct{}
}

type callResult struct {
	data json.RawMessage
	err  error
}

// newClient starts reading r and writing w. handle gets every record that
// is not a response; onEnd, called once r ended and every record before
// was handled, says what calls still pending fail with.
func newClient(r io.Reader, w io.Writer, maxLine int, handle func(*Record), onEnd func() error) *client {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	c := &client{handle: handle, onEnd: onEnd, maxLine: maxLine, writes: make(chan []byte, 64), gone: make(chan struct{}),
		pending: map[string]chan callResult{}, signal: make(chan struct{}, 1)}
	go c.read(r)
	go c.dispatch()
	go c.write(w)
	return c
}

// Call sends command typ with params' members (a struct or map encoding
// as a JSON object, or nil) and waits for its response's data.
func (c *client) Call(ctx context.Context, typ string, params any) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.next++
	id := "pt" + strconv.FormatUint(c.next, 10)
	ch := make(chan callResult, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	line, err := encodeCommand(id, typ, params)
	if err == nil {
		err = c.send(ctx, line)
	}
	if err != nil {
		c.forget(id)
		return nil, err
	}
	select {
	case r := <-ch:
		return r.data, r.err
	case <-ctx.Done():
		c.forget(id)
		return nil, ctx.Err()
	}
}

func (c *client) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Send writes one record that has no response (extension_ui_response).
func (c *client) Send(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.send(ctx, append(b, '\n'))
}

func (c *client) send(ctx context.Context, line []byte) error {
	select {
	case c.writes <- line:
		return nil
	case <-c.gone:
		return c.failure()
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *client) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// encodeCommand writes {"id":…,"type":…,<params' members>}\n.
func encodeCommand(id, typ string, params any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	b.WriteString(strconv.Quote(id))
	b.WriteString(`,"type":`)
	tb, _ := json.Marshal(typ)
	b.Write(tb)
	if params != nil {
		pb, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		pb = bytes.TrimSpace(pb)
		if len(pb) < 2 || pb[0] != '{' {
			return nil, fmt.Errorf("command %s: parameters are not an object", typ)
		}
		if inner := bytes.TrimSpace(pb[1 : len(pb)-1]); len(inner) > 0 {
			b.WriteByte(',')
			b.Write(inner)
		}
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

func (c *client) write(w io.Writer) {
	for {
		select {
		case line := <-c.writes:
			if _, err := w.Write(line); err != nil {
				// pi closed stdin or died: the reader sees the end and
				// says why; until then writes are dropped.
				continue
			}
		case <-c.gone:
			return
		}
	}
}

// read splits r on LF only (a CR before it is dropped), decodes each
// line and queues it. A line over maxLine is skipped and a line that is
// not JSON reported; neither ends the stream.
func (c *client) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte // a line longer than the reader's buffer, so far
	skipping := 0   // bytes of a line over maxLine, being skipped
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if skipping > 0 || len(long)+len(chunk) > c.maxLine {
				skipping += len(long) + len(chunk)
				long = long[:0]
				continue
			}
			long = append(long, chunk...)
			continue
		}
		if len(chunk) == 0 && err != nil {
			break
		}
		line := chunk
		if len(long) > 0 {
			long = append(long, chunk...)
			line = long
		}
		switch {
		case skipping > 0 || len(line) > c.maxLine+1:
			c.push(&Record{Type: recProtocol, Error: fmt.Sprintf("pi wrote a line of %d bytes, over the %d-byte limit; it was skipped", skipping+len(line), c.maxLine)})
			skipping = 0
		default:
			c.decode(line)
		}
		long = long[:0]
		if cap(long) > 1<<20 {
			long = nil // do not keep a big buffer for the next small line
		}
		if err != nil {
			break
		}
	}
	c.mu.Lock()
	c.ended = true
	c.mu.Unlock()
	c.wake()
}

func (c *client) decode(line []byte) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	rec := &Record{}
	if err := json.Unmarshal(line, rec); err != nil || rec.Type == "" {
		c.push(&Record{Type: recProtocol, Error: "pi wrote a line that is not a record: " + quoteShort(line)})
		return
	}
	c.push(rec)
}

func (c *client) push(r *Record) {
	c.mu.Lock()
	c.queue = append(c.queue, r)
	c.mu.Unlock()
	c.wake()
}

func (c *client) wake() {
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

// dispatch hands records out in order: responses to their callers, the
// rest to handle. Once the reader ended and the queue is empty, every
// pending call fails with what onEnd says.
func (c *client) dispatch() {
	for range c.signal {
		for {
			c.mu.Lock()
			batch, ended := c.queue, c.ended
			c.queue = nil
			c.mu.Unlock()
			if len(batch) == 0 {
				if ended {
					c.fail(c.onEnd())
					return
				}
				break
			}
			for _, r := range batch {
				if r.Type == "response" && r.ID != "" {
					c.respond(r)
					continue
				}
				c.handle(r)
			}
		}
	}
}

func (c *client) respond(r *Record) {
	c.mu.Lock()
	ch, ok := c.pending[r.ID]
	delete(c.pending, r.ID)
	c.mu.Unlock()
	if !ok {
		return // its caller gave up
	}
	if !r.Success {
		msg := r.Error
		if msg == "" {
			msg = "no reason given"
		}
		ch <- callResult{err: &ProtocolError{Command: r.Command, Message: piText(msg)}}
		return
	}
	ch <- callResult{data: r.Data}
}

// fail ends the client: every pending and later call returns err.
func (c *client) fail(err error) {
	if err == nil {
		err = errors.New("pi closed its output")
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	pending := c.pending
	c.pending = map[string]chan callResult{}
	c.mu.Unlock()
	close(c.gone)
	for _, ch := range pending {
		ch <- callResult{err: err}
	}
}
