package rpc

import (
	"fmt"
	"sync"
)

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
// of prompts; one command line is at most MaxLine.
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
