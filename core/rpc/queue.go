package rpc

import "sync"

// jobQueue holds prompts and compactions in the order they came, without
// bound on the reader's side: enqueueing never blocks, so the command
// reader keeps answering while the agent works. It knows the session of
// the job that runs, which is not always the rpc's current one (a
// new_session may come while a prompt of the old session runs).
type jobQueue struct {
	mu      sync.Mutex
	jobs    []job
	running string // session of the job under way, "" when idle
	closed  bool
	wake    chan struct{}
}

type job struct {
	session string
	run     func()
}

func (q *jobQueue) init() {
	if q.wake == nil {
		q.wake = make(chan struct{}, 1)
	}
}

func (q *jobQueue) push(j job) {
	q.mu.Lock()
	q.init()
	q.jobs = append(q.jobs, j)
	q.mu.Unlock()
	q.signal()
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
			q.jobs = q.jobs[1:]
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
	q.jobs = nil
	return n
}

func (q *jobQueue) close() {
	q.mu.Lock()
	q.init()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}
