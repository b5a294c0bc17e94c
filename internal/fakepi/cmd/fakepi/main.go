// Command fakepi is a fake pi 1.6 for pi-tui's tests: see package
// internal/fakepi for what it does and how it is told to.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/pi-tui/pi-tui/internal/fakepi"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "--version" || os.Args[1] == "-v") {
		if msg := os.Getenv("FAKEPI_VERSION_FAIL"); msg != "" {
			fmt.Fprintln(os.Stderr, "loading...")
			fmt.Fprintln(os.Stderr, msg)
			os.Exit(1)
		}
		v := os.Getenv("FAKEPI_VERSION")
		if v == "" {
			v = "1.6.0"
		}
		fmt.Println(v)
		return
	}
	f := newFake()
	f.logf("start %s", strings.Join(os.Args[1:], " "))
	if msg := os.Getenv("FAKEPI_DIE_AT_START"); msg != "" {
		fmt.Fprintln(os.Stderr, "fakepi: starting")
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(3)
	}
	f.signals()
	if err := f.connectBridge(); err != nil {
		fmt.Fprintln(os.Stderr, "fakepi: bridge:", err)
	}
	f.serve()
}

// fake is one fake pi process.
type fake struct {
	outMu sync.Mutex
	out   *bufio.Writer

	script  fakepi.Script
	sess    *session
	bridge  *bridge
	silent  bool
	logFile *os.File

	mu       sync.Mutex
	running  bool
	runDone  chan struct{}
	steering []string
	followUp []string
	queued   int           // steer/follow_up commands since the run began
	wake     chan struct{} // a queue command or an abort arrived
	aborted  bool
	events   int
	dieAfter int
	extra    []string // FAKEPI_HUGE / FAKEPI_GARBAGE lines still to write
	dialogs  map[string]chan map[string]any
	nextUI   int
	replyIdx int
	tuned    tuning // the model and thinking level (tune.go)
}

func newFake() *fake {
	f := &fake{out: bufio.NewWriterSize(os.Stdout, 1<<16), wake: make(chan struct{}, 1), dialogs: map[string]chan map[string]any{}, tuned: launchTuning()}
	f.silent = os.Getenv("FAKEPI_SILENT") != ""
	f.dieAfter, _ = strconv.Atoi(os.Getenv("FAKEPI_DIE_AFTER"))
	if n, _ := strconv.Atoi(os.Getenv("FAKEPI_HUGE")); n > 0 {
		f.extra = append(f.extra, `{"type":"message_update","pad":"`+strings.Repeat("x", n)+`"}`)
	}
	if g := os.Getenv("FAKEPI_GARBAGE"); g != "" {
		f.extra = append(f.extra, g)
	}
	if p := os.Getenv("FAKEPI_LOG"); p != "" {
		f.logFile, _ = os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	if p := os.Getenv("FAKEPI_SCRIPT"); p != "" {
		b, err := os.ReadFile(p)
		if err == nil {
			err = json.Unmarshal(b, &f.script)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakepi: script:", err)
			os.Exit(4)
		}
	}
	f.sess = openSession(sessionArg())
	return f
}

func sessionArg() string {
	for i, a := range os.Args {
		if a == "--session" && i+1 < len(os.Args) {
			return os.Args[i+1]
		}
	}
	return ""
}

func (f *fake) logf(format string, args ...any) {
	if f.logFile != nil {
		fmt.Fprintf(f.logFile, format+"\n", args...)
	}
}

func (f *fake) signals() {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGTERM)
	go func() {
		for range ch {
			f.logf("SIGTERM")
			if os.Getenv("FAKEPI_IGNORE_TERM") == "" {
				f.logf("exit")
				os.Exit(0)
			}
		}
	}()
}

// emit writes one record; inside a run it counts towards FAKEPI_DIE_AFTER.
func (f *fake) emit(v any) {
	b, _ := json.Marshal(v)
	f.outMu.Lock()
	f.out.Write(b)
	f.out.WriteByte('\n')
	f.out.Flush()
	f.outMu.Unlock()
	f.mu.Lock()
	counting := f.running
	if counting {
		f.events++
	}
	die := counting && f.dieAfter > 0 && f.events >= f.dieAfter
	f.mu.Unlock()
	if die {
		fmt.Fprintln(os.Stderr, "fakepi: something went wrong")
		fmt.Fprintln(os.Stderr, "fakepi: crashing after", f.events, "events")
		f.logf("crash")
		os.Exit(2)
	}
}

func (f *fake) raw(line string) {
	f.outMu.Lock()
	f.out.WriteString(line)
	f.out.WriteByte('\n')
	f.out.Flush()
	f.outMu.Unlock()
}

type obj = map[string]any

func (f *fake) respond(id any, command string, data any, errMsg string) {
	r := obj{"type": "response", "command": command, "success": errMsg == ""}
	if id != nil {
		r["id"] = id
	}
	if errMsg != "" {
		r["error"] = errMsg
	} else if data != nil {
		r["data"] = data
	}
	f.emit(r)
}

// serve reads commands until stdin ends.
func (f *fake) serve() {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			f.command(line)
		}
		if err != nil {
			break
		}
	}
	f.logf("stdin closed")
	if os.Getenv("FAKEPI_IGNORE_EOF") != "" {
		select {}
	}
	f.mu.Lock()
	done := f.runDone
	f.mu.Unlock()
	if done != nil {
		<-done
	}
	f.logf("exit")
	os.Exit(0)
}

func (f *fake) command(line []byte) {
	var c obj
	if err := json.Unmarshal(line, &c); err != nil {
		f.respond(nil, "parse", nil, "Failed to parse command: "+err.Error())
		return
	}
	if f.silent {
		return
	}
	id, typ := c["id"], str(c["type"])
	msg := str(c["message"])
	if typ == "prompt" {
		f.logf("prompt %s", strings.ReplaceAll(msg, "\n", " "))
	}
	switch typ {
	case "get_state":
		f.mu.Lock()
		streaming, pending, thinking := f.running, len(f.steering)+len(f.followUp), f.tuned.thinking
		f.mu.Unlock()
		if thinking == "" {
			thinking = "off"
		}
		f.respond(id, typ, obj{"model": modelObj(f.current()),
			"thinkingLevel": thinking, "isStreaming": streaming, "isCompacting": false, "sessionFile": f.sess.path, "sessionId": f.sess.id,
			"messageCount": 0, "pendingMessageCount": pending}, "")
	case "prompt":
		if name, arg, ok := strings.Cut(strings.TrimPrefix(msg, "/"), " "); strings.HasPrefix(msg, "/") && ok && name == "pi-tui-branch" {
			if !f.sess.has(arg) {
				f.emit(obj{"type": "extension_error", "extensionPath": "fakepi-bridge", "event": "command", "error": "no entry " + arg})
			} else {
				f.sess.setLeaf(arg)
			}
			f.respond(id, typ, obj{"disposition": "handled"}, "")
			return
		}
		f.mu.Lock()
		if f.running {
			behaviour := str(c["streamingBehavior"])
			f.mu.Unlock()
			if behaviour == "" {
				f.respond(id, typ, nil, "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.")
				return
			}
			f.enqueue(behaviour == "steer", msg)
			f.respond(id, typ, obj{"disposition": "queued"}, "")
			return
		}
		f.running, f.aborted, f.events, f.queued = true, false, 0, 0
		f.runDone = make(chan struct{})
		done := f.runDone
		f.mu.Unlock()
		f.respond(id, typ, obj{"disposition": "started"}, "")
		go func() {
			f.run(msg)
			close(done)
		}()
	case "steer", "follow_up":
		f.enqueue(typ == "steer", msg)
		f.respond(id, typ, obj{"disposition": "queued"}, "")
	case "clear_queue":
		f.mu.Lock()
		s, fu := nonNil(f.steering), nonNil(f.followUp)
		f.steering, f.followUp = nil, nil
		f.mu.Unlock()
		f.emit(obj{"type": "queue_update", "steering": []string{}, "followUp": []string{}})
		f.respond(id, typ, obj{"steering": s, "followUp": fu}, "")
	case "abort":
		f.mu.Lock()
		f.aborted = true
		done := f.runDone
		f.mu.Unlock()
		f.poke()
		go func() {
			if done != nil {
				<-done
			}
			f.respond(id, typ, nil, "")
		}()
	case "compact":
		f.compact(id, str(c["customInstructions"]))
	case "get_entries":
		// As pi: a cursor it does not hold is an error.
		if since, ok := c["since"]; ok && !f.sess.has(str(since)) {
			f.respond(id, typ, nil, "Entry not found: "+str(since))
			return
		}
		f.respond(id, typ, obj{"entries": []any{}, "leafId": f.sess.leafOrNil()}, "")
	case "extension_ui_response":
		f.mu.Lock()
		ch := f.dialogs[str(c["id"])]
		delete(f.dialogs, str(c["id"]))
		f.mu.Unlock()
		if ch != nil {
			ch <- c
		}
	default:
		if !f.tune(id, typ, c) && !f.catalogue(id, typ) {
			f.respond(id, typ, nil, "Unknown command: "+typ)
		}
	}
}

func (f *fake) enqueue(steer bool, msg string) {
	f.mu.Lock()
	if steer {
		f.steering = append(f.steering, msg)
	} else {
		f.followUp = append(f.followUp, msg)
	}
	f.queued++
	s, fu := nonNil(f.steering), nonNil(f.followUp)
	f.mu.Unlock()
	f.emit(obj{"type": "queue_update", "steering": s, "followUp": fu})
	f.poke()
}

func (f *fake) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return append([]string(nil), s...)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func (f *fake) compact(id any, extra string) {
	f.emit(obj{"type": "compaction_start", "reason": "manual"})
	if f.sess.leafOrNil() == nil {
		f.emit(obj{"type": "compaction_end", "reason": "manual", "aborted": false, "willRetry": false, "errorMessage": "Compaction failed: Nothing to compact (session too small)"})
		f.respond(id, "compact", nil, "Nothing to compact (session too small)")
		return
	}
	summary := "Summary of the conversation."
	if extra != "" {
		summary += " Focus: " + extra
	}
	first := f.sess.leaf
	f.sess.append(obj{"type": "compaction", "summary": summary, "firstKeptEntryId": first, "tokensBefore": 1000})
	res := obj{"summary": summary, "firstKeptEntryId": first, "tokensBefore": 1000, "estimatedTokensAfter": 100}
	f.emit(obj{"type": "compaction_end", "reason": "manual", "result": res, "aborted": false, "willRetry": false})
	f.respond(id, "compact", res, "")
}
