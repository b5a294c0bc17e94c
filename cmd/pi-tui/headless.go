package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/projects"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/runtime"
	"github.com/pi-tui/pi-tui/core/session"
	"github.com/pi-tui/pi-tui/internal/lineread"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// openHost opens the host for the headless commands.
func (a *app) openHost() (*host.Host, error) {
	pl, err := a.places()
	if err != nil {
		return nil, err
	}
	st, err := a.open()
	if err != nil {
		return nil, err
	}
	return host.New(pl, st), nil
}

// projectFor picks --project or the registered project holding the
// working directory.
func (a *app) projectFor(flagValue string) (projects.Project, error) {
	if flagValue != "" {
		_, p, err := a.find(flagValue)
		return p, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return projects.Project{}, err
	}
	p, ok, err := a.projectHolding(cwd)
	if err != nil {
		return projects.Project{}, err
	}
	if !ok {
		return projects.Project{}, errors.New("no project given and the working directory is not inside a registered project: pass --project P, or register this folder with: pi-tui projects add DIR")
	}
	return p, nil
}

// jsonLines writes one JSON value per line, from any goroutine.
type jsonLines struct {
	mu  sync.Mutex
	w   io.Writer
	enc *json.Encoder
}

func newJSONLines(w io.Writer) *jsonLines {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonLines{w: w, enc: enc}
}

func (j *jsonLines) write(v any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.enc.Encode(v)
}

// event writes e as the wire has it (events.Marshal, the one encoder of
// events). A kind that is not on the wire, or a tool call whose arguments
// are not JSON, writes nothing, as an encoder that fails writes nothing.
// The runtimes' events come through streamEvents.
func (j *jsonLines) event(e events.Event) {
	line, err := events.Marshal(e)
	if err != nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.w.Write(append(line, '\n'))
}

// streamEvents writes the runtimes' events (the broker's Agent topic) as
// the wire has them: every one, in the order published (a Verbatim
// subscription merges no deltas), from a goroutine of its own, so a client
// slow to read holds no runtime up. The func it returns ends the stream
// once what was published before the call is written; call it after the
// runtime manager's Close, whose retirements are the last lines.
func streamEvents(b *events.Broker, out *jsonLines) (stop func()) {
	sub := b.Subscribe(context.Background(), events.Agent, events.Verbatim)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			batch, ok := sub.Next()
			if !ok {
				return
			}
			for _, e := range batch {
				out.event(e)
			}
		}
	}()
	return func() {
		sub.Close()
		<-done
	}
}

func (a *app) promptCmd(args []string) error {
	fs := a.flags("prompt")
	project := fs.String("project", "", "")
	model := fs.String("model", "", "")
	thinking := fs.String("thinking", "", "")
	sessionID := fs.String("session", "", "")
	cont := fs.Bool("continue", false, "")
	asJSON := fs.Bool("json", false, "")
	yes := fs.Bool("yes", false, "")
	inWorktree := fs.Bool("worktree", false, "")
	base := fs.String("base", "", "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui prompt")
	}
	if err != nil {
		return err
	}
	text := strings.TrimSpace(strings.Join(pos, " "))
	if text == "-" {
		data, err := io.ReadAll(io.LimitReader(a.stdin, 4<<20))
		if err != nil {
			return fmt.Errorf("read the prompt from standard input: %w", err)
		}
		text = strings.TrimSpace(string(data))
	}
	if text == "" {
		return usagef("prompt needs TEXT (or - to read it from standard input)")
	}
	if *sessionID != "" && *cont {
		return usagef("prompt: give --session or --continue, not both")
	}
	if *inWorktree && (*sessionID != "" || *cont) {
		return usagef("prompt: --worktree starts a new session; it does not go with --session or --continue")
	}
	if *base != "" && !*inWorktree {
		return usagef("prompt: --base is the branch a new worktree starts from; give it with --worktree")
	}
	spec := *model
	if *thinking != "" {
		level, err := provider.ParseThinkingLevel(*thinking)
		if err != nil {
			return usagef("prompt --thinking: %v", err)
		}
		m, _ := provider.SplitThinking(spec)
		spec = provider.WithThinking(m, level)
	}
	h, err := a.openHost()
	if err != nil {
		return err
	}
	p, err := a.projectFor(*project)
	if err != nil {
		return err
	}
	if *asJSON {
		defer streamEvents(h.Events, newJSONLines(a.stdout))() // after m.Close: its retirements are the last lines
	}
	// Every call this run denies is denied here: nobody shows the session.
	var deniedMu sync.Mutex
	var denied []string
	opts := runtime.Options{Host: h, Env: a.env}
	if *yes {
		opts.Approve = func(context.Context, agent.Approval) (bool, error) { return true, nil }
	} else {
		// Nobody is asked: the model must not read that a person said no.
		opts.Approve = func(_ context.Context, req agent.Approval) (bool, error) {
			deniedMu.Lock()
			denied = append(denied, req.Tool)
			deniedMu.Unlock()
			return false, &agent.DeniedError{Unasked: fmt.Sprintf("This %s call needs approval, and this run (pi-tui prompt without --yes) gives none; nobody was asked. "+
				"Do not retry it; finish what you can without it and say what was left undone.", req.Tool)}
		}
	}
	m, err := runtime.New(opts)
	if err != nil {
		return err
	}
	defer m.Close()
	var s string
	if *inWorktree {
		s, err = a.worktreeSession(m.Sessions(), p.ID, *base)
	} else {
		s, err = a.sessionFor(m.Sessions(), p, *sessionID, *cont)
	}
	if err != nil {
		return err
	}
	// /skill:name and /template calls expand as pi expands them.
	if text, err = m.Expand(a.ctx, s, text); err != nil {
		return err
	}
	res, err := m.Prompt(a.ctx, s, spec, text)
	deniedErr := func() error {
		if len(denied) == 0 {
			return nil
		}
		were := "were"
		if len(denied) == 1 {
			were = "was"
		}
		return &codeError{code: exitDenied, msg: fmt.Sprintf("%s needed approval and %s denied (%s); run with --yes to allow them",
			plural(len(denied), "tool call", "tool calls"), were, strings.Join(denied, ", "))}
	}
	if err != nil && len(denied) > 0 {
		fmt.Fprintf(a.stderr, "pi-tui: note: %v\n", deniedErr())
	}
	if err != nil {
		if !*asJSON && res.Text != "" {
			// Keep what arrived: the partial answer, then the reason.
			fmt.Fprintln(a.stdout, safetext.Visible(res.Text))
		}
		return err
	}
	if res.Aborted {
		return errors.New("the prompt was aborted; what arrived is kept in the session")
	}
	if !*asJSON {
		// The model's text, with control characters shown as text: an
		// answer must not set the clipboard or hide text in the terminal
		// it is printed to. --json carries it exactly.
		fmt.Fprintln(a.stdout, safetext.Visible(res.Text))
	}
	return deniedErr()
}

// worktreeSession starts a session in a worktree of its own and says
// where on standard error (standard output is the answer).
func (a *app) worktreeSession(sm *session.Manager, projectID, base string) (string, error) {
	svc, err := a.worktrees()
	if err != nil {
		return "", err
	}
	s, w, err := svc.NewSession(a.ctx, sm, projectID, base, "")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(a.stderr, "pi-tui: note: session %s works on branch %s (from %s) in %s\n", s.ID(), w.Branch, w.Base, safetext.Label(w.Root))
	return s.ID(), nil
}

// sessionFor returns the session id to use: --session (which must belong
// to the project), the latest with --continue, or a new one.
func (a *app) sessionFor(sm *session.Manager, p projects.Project, id string, cont bool) (string, error) {
	switch {
	case id != "":
		s, err := sm.Open(a.ctx, id)
		if err != nil {
			return "", err
		}
		if s.ProjectID() != p.ID {
			return "", fmt.Errorf("session %s belongs to another project", id)
		}
		return id, nil
	case cont:
		if sum, ok, err := sm.Latest(a.ctx, p.ID); err != nil {
			return "", err
		} else if ok {
			return sum.ID, nil
		}
	}
	s, err := sm.Create(a.ctx, p.ID, "")
	if err != nil {
		return "", err
	}
	return s.ID(), nil
}

// sessionList lists a project's sessions, newest first.
func (a *app) sessionList(projectID string) ([]session.Summary, error) {
	sm, err := a.sessionManager()
	if err != nil {
		return nil, err
	}
	return sm.List(a.ctx, projectID)
}

func (a *app) sessionsCmd(args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		return a.helpCmd([]string{"sessions"})
	}
	if len(args) > 0 {
		switch args[0] {
		case "merge":
			return a.sessionsMerge(args[1:])
		case "discard":
			return a.sessionsDiscard(args[1:])
		}
	}
	if len(args) == 0 || args[0] != "list" {
		return usagef("sessions: the subcommands are list, merge and discard (pi-tui help sessions)")
	}
	fs := a.flags("sessions list")
	asJSON := fs.Bool("json", false, "")
	pos, err := parse(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui sessions")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("sessions list needs exactly one PROJECT")
	}
	_, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	list, err := a.sessionList(p.ID)
	if err != nil {
		return err
	}
	svc, err := a.worktrees()
	if err != nil {
		return err
	}
	of := svc.Of(a.ctx, p.ID, list)
	statuses := svc.Statuses(a.ctx, of.Bound, 0)
	if *asJSON {
		type row struct {
			ID        string        `json:"id"`
			Title     string        `json:"title"`
			CreatedAt int64         `json:"createdAt"`
			UpdatedAt int64         `json:"updatedAt"`
			Entries   int           `json:"entries"`
			Path      string        `json:"path"`
			Problem   string        `json:"problem,omitempty"`
			Worktree  *worktreeJSON `json:"worktree,omitempty"`
		}
		rows := make([]row, 0, len(list))
		for _, s := range list {
			r := row{ID: s.ID, Title: s.Title, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, Entries: s.Entries, Path: s.Path, Problem: s.Problem}
			if w, ok := of.Bound[s.ID]; ok {
				st := statuses[s.ID]
				r.Worktree = &worktreeJSON{Root: w.Root, Branch: w.Branch, Base: w.Base, Missing: st.Missing, Fix: st.Fix,
					Uncommitted: append([]string{}, st.Changed...), Files: st.Files, Insertions: st.Insertions, Deletions: st.Deletions}
			}
			if inv, ok := of.Invalid[s.ID]; ok {
				r.Worktree = invalidJSON(inv)
			}
			rows = append(rows, r)
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(list) == 0 {
		fmt.Fprintf(a.stdout, "%s has no sessions yet. Start one with: pi-tui prompt --project %s TEXT\n", p.Name, p.ID)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	hasWorktrees := len(of.Bound)+len(of.Invalid) > 0
	if hasWorktrees {
		// Worktree sessions: their branch, * for uncommitted changes, and
		// the diff stat against the base.
		fmt.Fprintln(tw, "ID\tUPDATED\tENTRIES\tWORKTREE\tTITLE")
	} else {
		fmt.Fprintln(tw, "ID\tUPDATED\tENTRIES\tTITLE")
	}
	for _, s := range list {
		title := s.Title
		if title == "" {
			title = s.FirstMessage
		}
		if s.Problem != "" {
			title = "(" + s.Problem + ") " + title
		}
		cell := ""
		if hasWorktrees {
			cell = "-\t"
			if w, ok := of.Bound[s.ID]; ok {
				st, ok := statuses[s.ID]
				cell = worktreeCell(w, st, ok) + "\t"
			}
			if _, ok := of.Invalid[s.ID]; ok {
				cell = invalidCell + "\t"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s%s\n", s.ID, time.UnixMilli(s.UpdatedAt).Local().Format("2006-01-02 15:04"), s.Entries, cell, safetext.Visible(firstLine(title)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return a.invalidNotes(list, of)
}

// rpcCommand is one line of rpc input.
type rpcCommand struct {
	// ID is echoed in the command's response exactly as the client wrote
	// it: any JSON value (a number, a string, null, an object).
	ID           json.RawMessage `json:"id"`
	Type         string          `json:"type"`
	Message      string          `json:"message"`
	EntryID      *string         `json:"entryId"`
	Model        string          `json:"model"`
	Provider     string          `json:"provider"`
	ModelID      string          `json:"modelId"`
	Level        string          `json:"level"`
	Instructions string          `json:"customInstructions"`
	// Worktree starts the new_session in a git worktree of its own, on a
	// branch from Base ("" = the checked-out branch).
	Worktree bool   `json:"worktree"`
	Base     string `json:"base"`
}

type rpcResponse struct {
	Type    string          `json:"type"`
	ID      json.RawMessage `json:"id,omitempty"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Error   string          `json:"error,omitempty"`
	Data    any             `json:"data,omitempty"`
}

func (a *app) rpcCmd(args []string) error {
	fs := a.flags("rpc")
	project := fs.String("project", "", "")
	model := fs.String("model", "", "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("pi-tui rpc")
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("rpc takes no arguments; it reads JSON commands on standard input")
	}
	h, err := a.openHost()
	if err != nil {
		return err
	}
	p, err := a.projectFor(*project)
	if err != nil {
		return err
	}
	out := newJSONLines(a.stdout)
	defer streamEvents(h.Events, out)() // after m.Close: its retirements are the last lines
	m, err := runtime.New(runtime.Options{Host: h, Env: a.env})
	if err != nil {
		return err
	}
	defer m.Close()
	r := &rpcServer{app: a, m: m, out: out, project: p, model: *model}
	if r.session, err = a.sessionFor(m.Sessions(), p, "", false); err != nil {
		return err
	}
	return r.serve(a.stdin)
}

// rpcMaxLine bounds one command line. A longer line is skipped with an
// error response; the commands after it are still read.
const rpcMaxLine = 16 << 20

// rpcServer serves one rpc stream. Prompts and compactions run in the
// background, one after another, so abort and get_state are answered at
// once however many prompts wait.
type rpcServer struct {
	app     *app
	m       *runtime.Manager
	out     *jsonLines
	project projects.Project
	model   string
	level   string // set_thinking_level's ("" = the model spec's or the default)
	session string
	queue   jobQueue
}

// spec is the model spec prompts use: the model and the thinking level.
func (r *rpcServer) spec() string {
	if r.level == "" {
		return r.model
	}
	m, _ := provider.SplitThinking(r.model)
	return provider.WithThinking(m, r.level)
}

func (r *rpcServer) serve(in io.Reader) error {
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
			raw, tooLong, err := lineread.Next(br, rpcMaxLine)
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
	}
	ctx := r.app.ctx
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
				r.out.write(rpcResponse{Type: "response", Command: "parse", Error: "line too long: a command may be at most 16 MiB; it was skipped"})
				continue
			}
			text := strings.TrimSpace(string(l.raw))
			if text == "" {
				continue
			}
			c, err := decodeCommand([]byte(text))
			if err != nil {
				r.out.write(rpcResponse{Type: "response", ID: c.ID, Command: "parse", Error: err.Error()})
				continue
			}
			r.handle(c)
		}
	}
}

// jobQueue holds prompts and compactions in the order they came.
// Enqueueing never blocks, so the command reader keeps answering while the
// agent works; it is bounded instead, by count and by the text the jobs
// hold, so a client that sends faster than the agent answers gets an error
// response rather than growing pi-tui's memory without end. It knows the
// session of the job that runs, which is not always the rpc's current one
// (a new_session may come while a prompt of the old session runs).
type jobQueue struct {
	mu      sync.Mutex
	jobs    []job
	bytes   int    // text the waiting jobs hold
	running string // session of the job under way, "" when idle
	closed  bool
	wake    chan struct{}
}

// The queue's bounds: what a script queues up in normal use is a handful
// of prompts; one command line is at most rpcMaxLine.
const (
	maxQueuedJobs  = 1024
	maxQueuedBytes = 64 << 20
)

type job struct {
	session string
	size    int // the bytes of text it holds
	run     func()
}

// errQueueFull refuses a job beyond the queue's bounds.
var errQueueFull = fmt.Errorf("too much is waiting (at most %d prompts and compactions, %d MiB of text): wait for an agent_end, or send abort", maxQueuedJobs, maxQueuedBytes>>20)

func (q *jobQueue) init() {
	if q.wake == nil {
		q.wake = make(chan struct{}, 1)
	}
}

// push queues j, or refuses it when the queue is at its bounds.
func (q *jobQueue) push(j job) error {
	q.mu.Lock()
	q.init()
	if len(q.jobs) >= maxQueuedJobs || q.bytes+j.size > maxQueuedBytes {
		q.mu.Unlock()
		return errQueueFull
	}
	q.jobs = append(q.jobs, j)
	q.bytes += j.size
	q.mu.Unlock()
	q.signal()
	return nil
}

func (q *jobQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// next waits for the next job and marks it running (the previous one is
// done); false once the queue is closed and empty.
func (q *jobQueue) next() (job, bool) {
	for {
		q.mu.Lock()
		q.init()
		q.running = ""
		if len(q.jobs) > 0 {
			j := q.jobs[0]
			q.jobs[0] = job{} // its text is freed once it has run
			q.jobs = q.jobs[1:]
			q.bytes -= j.size
			q.running = j.session
			q.mu.Unlock()
			return j, true
		}
		if q.closed {
			q.mu.Unlock()
			return job{}, false
		}
		wake := q.wake
		q.mu.Unlock()
		<-wake
	}
}

// current is the session of the job under way ("" when none runs).
func (q *jobQueue) current() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.running
}

// drop removes the jobs that have not started and says how many.
func (q *jobQueue) drop() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := len(q.jobs)
	q.jobs, q.bytes = nil, 0
	return n
}

func (q *jobQueue) close() {
	q.mu.Lock()
	q.init()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (r *rpcServer) enqueue(sessionID string, size int, run func()) error {
	return r.queue.push(job{session: sessionID, size: size, run: run})
}

func (r *rpcServer) reply(c rpcCommand, err error, data any) {
	resp := rpcResponse{Type: "response", ID: c.ID, Command: c.Type, Success: err == nil, Data: data}
	if err != nil {
		resp.Error = err.Error()
	}
	r.out.write(resp)
}

func (r *rpcServer) handle(c rpcCommand) {
	ctx := r.app.ctx
	switch c.Type {
	case "prompt":
		if strings.TrimSpace(c.Message) == "" {
			r.reply(c, errors.New("message is empty"), nil)
			return
		}
		sessionID, model := r.session, r.spec()
		r.reply(c, r.enqueue(sessionID, len(c.Message), func() {
			// /skill:name and /template calls expand as pi expands them.
			text, err := r.m.Expand(ctx, sessionID, c.Message)
			if err != nil {
				r.m.Events().Publish(events.AgentEnded{SessionID: sessionID, Error: err.Error(), StopReason: provider.StopError})
				return
			}
			// Failures end with the agent_end the runtime emits.
			r.m.Prompt(ctx, sessionID, model, text)
		}), nil)
	case "abort":
		// Waiting prompts go too: abort means stop, not "skip to the next".
		// The running job's session, which a new_session may have left.
		dropped := r.queue.drop()
		sid := r.queue.current()
		if sid == "" {
			sid = r.session
		}
		r.reply(c, nil, map[string]any{"aborted": r.m.Abort(sid), "dropped": dropped})
	case "get_state":
		r.reply(c, nil, r.state())
	case "new_session":
		if c.Worktree {
			r.newWorktreeSession(c)
			return
		}
		s, err := r.m.Sessions().Create(ctx, r.project.ID, "")
		if err != nil {
			r.reply(c, err, nil)
			return
		}
		r.m.Retire(r.session, runtime.ReasonSessionChanged)
		r.session = s.ID()
		r.reply(c, nil, map[string]string{"sessionId": s.ID()})
	case "compact":
		sessionID, model := r.session, r.spec()
		r.reply(c, r.enqueue(sessionID, len(c.Instructions), func() {
			if _, err := r.m.Compact(ctx, sessionID, model, c.Instructions); err != nil {
				r.m.Events().Publish(events.CompactionEnded{SessionID: sessionID, Error: err.Error()})
			}
		}), nil)
	case "branch":
		if c.EntryID == nil {
			r.reply(c, errors.New(`branch needs "entryId": the entry to continue from ("" for before the first one)`), nil)
			return
		}
		r.reply(c, r.m.Branch(ctx, r.session, *c.EntryID), nil)
	case "set_model":
		spec := c.Model
		if spec == "" && c.Provider != "" {
			spec = c.Provider + "/" + c.ModelID
		}
		if spec == "" {
			r.reply(c, errors.New(`set_model needs "model": "PROVIDER/ID"`), nil)
			return
		}
		// Checked without building a client: no key command runs here.
		if _, err := provider.Describe(r.app.placesOrEmpty().AgentDir, r.app.env, spec); err != nil {
			r.reply(c, err, nil)
			return
		}
		r.model = spec
		r.reply(c, nil, map[string]string{"model": spec})
	case "set_thinking_level":
		level, err := provider.ParseThinkingLevel(c.Level)
		if err != nil {
			r.reply(c, fmt.Errorf(`set_thinking_level needs "level": %v`, err), nil)
			return
		}
		r.level = level
		data := map[string]string{"level": level}
		// Say what the model will use: an unsupported level is clamped.
		if d, err := provider.Describe(r.app.placesOrEmpty().AgentDir, r.app.env, r.spec()); err == nil {
			data["thinkingLevel"] = d.Model.Thinking
		}
		r.reply(c, nil, data)
	default:
		r.reply(c, fmt.Errorf("unknown command %q (prompt, abort, get_state, new_session, compact, branch, set_model, set_thinking_level)", c.Type), nil)
	}
}

// rpcState is get_state's data: the session's runtime (its last launch,
// reuse or retirement as the event went on the wire) and the rpc's
// project and model setting.
type rpcState struct {
	SessionID string          `json:"sessionId"`
	Runtime   string          `json:"runtime"` // none, idle, working
	Model     string          `json:"model,omitempty"`
	Thinking  string          `json:"thinkingLevel,omitempty"`
	Last      json.RawMessage `json:"last,omitempty"`
	Usage     *provider.Usage `json:"usage,omitempty"`
	Leaf      string          `json:"leafId,omitempty"`
	Title     string          `json:"title,omitempty"`
	Project   string          `json:"project"`
	Root      string          `json:"root"`
	ModelIn   string          `json:"modelSetting,omitempty"`
}

func (r *rpcServer) state() rpcState {
	st := r.m.State(r.session)
	out := rpcState{SessionID: st.SessionID, Runtime: st.Runtime, Model: st.Model, Thinking: st.Thinking, Usage: st.Usage, Leaf: st.Leaf,
		Title: st.Title, Project: r.project.Name, Root: r.project.Root, ModelIn: r.spec()}
	if st.Last != nil {
		out.Last, _ = events.Marshal(st.Last)
	}
	return out
}

// newWorktreeSession answers new_session with "worktree": true.
func (r *rpcServer) newWorktreeSession(c rpcCommand) {
	svc, err := r.app.worktrees()
	if err != nil {
		r.reply(c, err, nil)
		return
	}
	s, w, err := svc.NewSession(r.app.ctx, r.m.Sessions(), r.project.ID, c.Base, "")
	if err != nil {
		r.reply(c, err, nil)
		return
	}
	r.m.Retire(r.session, runtime.ReasonSessionChanged)
	r.session = s.ID()
	r.reply(c, nil, map[string]any{"sessionId": s.ID(), "worktree": map[string]string{"root": w.Root, "branch": w.Branch, "base": w.Base}})
}

// firstLine keeps a listing to one line per session.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
