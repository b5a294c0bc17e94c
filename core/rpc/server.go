// Package rpc serves pi-tui's rpc protocol on one stream (pi-tui rpc):
// one JSON command a line in, a response to each and the runtimes' events
// out, as JSON lines. Prompts and compactions wait their turn in a bounded
// queue of their own, so the reader keeps answering while the agent works.
package rpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/internal/lineread"
)

// Config is one rpc stream's setting.
type Config struct {
	// Host is the host core; its runtimes run the prompts.
	Host *host.Host
	// Out carries the responses; the caller streams the runtimes' events
	// there too (StreamEvents).
	Out *Lines
	// Project is the project the stream works in; Session its session
	// prompts go to until new_session.
	Project registry.Project
	Session string
	// Model is the model spec prompts use ("" = the default).
	Model string
	// Env looks up environment variables (API keys, for set_model's
	// check of models.json).
	Env func(string) string
}

// Serve reads commands from in until it ends or ctx does (a signal);
// what was queued still runs, unless aborted, before it returns.
func Serve(ctx context.Context, in io.Reader, cfg Config) error {
	r := &server{ctx: ctx, h: cfg.Host, env: cfg.Env, m: cfg.Host.Runtimes, out: cfg.Out, project: cfg.Project, model: cfg.Model, session: cfg.Session,
		passing: make(chan struct{}, maxPassing)}
	return r.serve(in)
}

// MaxLine bounds one command line. A longer line is skipped with an
// error response; the commands after it are still read.
const MaxLine = 16 << 20

// server serves one rpc stream. Prompts and compactions run in the
// background, one after another, so abort and get_state are answered at
// once however many prompts wait.
type server struct {
	ctx     context.Context
	h       *host.Host
	env     func(string) string
	m       *runtimes.Manager
	out     *Lines
	project registry.Project
	model   string
	level   string // set_thinking_level's ("" = the model spec's or the default)
	session string
	queue   jobQueue
	// passing bounds pi's commands in flight (passthrough.go); passed
	// lets Serve wait for them.
	passing chan struct{}
	passed  sync.WaitGroup
}

// spec is the model spec prompts use: the model and the thinking level.
func (r *server) spec() string {
	if r.level == "" {
		return r.model
	}
	m, _ := provider.SplitThinking(r.model)
	return provider.WithThinking(m, r.level)
}

func (r *server) serve(in io.Reader) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			j, ok := r.queue.next()
			if !ok {
				return
			}
			j.run()
		}
	}()
	// Input is read on its own goroutine so a signal (the context) ends
	// the server even while standard input stays open and silent.
	type line struct {
		raw     []byte
		tooLong bool
	}
	lines := make(chan line)
	readErr := make(chan error, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(lines)
		br := bufio.NewReaderSize(in, 64*1024)
		for {
			raw, tooLong, err := lineread.Next(br, MaxLine)
			if len(raw) > 0 || tooLong {
				select {
				case lines <- line{raw, tooLong}:
				case <-stop:
					return
				}
			}
			if err != nil {
				if err != io.EOF {
					readErr <- err
				}
				return
			}
		}
	}()
	finish := func() {
		// What was queued still runs (unless aborted), then rpc exits.
		r.queue.close()
		<-done
		r.passed.Wait()
	}
	ctx := r.ctx
	for {
		select {
		case <-ctx.Done():
			// Running and queued work sees the same context and ends.
			r.queue.drop()
			r.m.Abort(r.queue.current())
			finish()
			return errors.New("stopped by a signal; the session keeps what arrived")
		case l, ok := <-lines:
			if !ok {
				finish()
				select {
				case err := <-readErr:
					return fmt.Errorf("read rpc input: %w", err)
				default:
					return nil
				}
			}
			if l.tooLong {
				r.out.Write(response{Type: "response", Command: "parse", Error: "line too long: a command may be at most 16 MiB; it was skipped"})
				continue
			}
			text := strings.TrimSpace(string(l.raw))
			if text == "" {
				continue
			}
			c, err := decodeCommand([]byte(text))
			if err != nil {
				r.out.Write(response{Type: "response", ID: c.ID, Command: "parse", Error: err.Error()})
				continue
			}
			r.handle(c)
		}
	}
}
