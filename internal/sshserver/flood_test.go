package sshserver

import (
	"context"
	"io"
	"math"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// flood is an attacker holding n connections to a server that never
// authenticate: each is reopened as soon as the server closes it, until
// the flood has opened max connections or is stopped.
type flood struct {
	opened, dropped atomic.Int64
	max             int64
	ctx             context.Context
	cancel          context.CancelFunc
	wg              sync.WaitGroup

	mu      sync.Mutex
	waiters []dropWaiter
	spent   bool  // max was reached
	errSeen error // the first dial error
}

// dropWaiter is closed once the server has dropped n connections.
type dropWaiter struct {
	n  int64
	ch chan struct{}
}

// floodKind says what a flood connection sends: nothing at all, or an SSH
// identification line and then nothing.
type floodKind int

const (
	floodIdle floodKind = iota
	floodBanner
	floodMixed // every other connection sends a banner
)

func (k floodKind) String() string {
	return [...]string{"idle", "banner-then-stall", "mixed"}[k]
}

// startFlood starts n connections of kind to addr; they stop after limit
// at the latest, and the test's cleanup stops them.
func startFlood(t testing.TB, addr string, n int, kind floodKind, max int64, limit time.Duration) *flood {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	f := &flood{max: max, ctx: ctx, cancel: cancel}
	for i := range n {
		banner := kind == floodBanner || kind == floodMixed && i%2 == 1
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for f.opened.Add(1) <= f.max {
				if !f.hold(ctx, addr, banner) {
					return
				}
			}
			f.mu.Lock()
			f.spent = true
			f.mu.Unlock()
		}()
	}
	t.Cleanup(f.stop)
	return f
}

// hold opens one connection and waits until the server closes it (true)
// or the flood is stopped (false).
func (f *flood) hold(ctx context.Context, addr string, banner bool) bool {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		f.mu.Lock()
		if f.errSeen == nil && ctx.Err() == nil {
			f.errSeen = err
		}
		f.mu.Unlock()
		return false
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if banner {
		io.WriteString(c, "SSH-2.0-flood\r\n")
	}
	io.Copy(io.Discard, c) // until the server closes it, or stop does
	if ctx.Err() != nil {
		return false
	}
	n := f.dropped.Add(1)
	f.mu.Lock()
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if n >= w.n {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	f.waiters = kept
	f.mu.Unlock()
	return true
}

// waitDropped waits until the server has dropped n of the flood's
// connections.
func (f *flood) waitDropped(t testing.TB, n int64) {
	t.Helper()
	ch := make(chan struct{})
	f.mu.Lock()
	if f.dropped.Load() >= n {
		close(ch)
	} else {
		f.waiters = append(f.waiters, dropWaiter{n, ch})
	}
	f.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(waitLimit):
		t.Fatalf("the server dropped %d flood connections, want %d", f.dropped.Load(), n)
	}
}

// stop ends the flood and waits for its connections to close.
func (f *flood) stop() {
	f.cancel()
	f.wg.Wait()
}

// state reports whether the flood has ended (its budget or its time
// spent, or stopped), and the first dial error it met.
func (f *flood) state() (ended bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.spent || f.ctx.Err() != nil, f.errSeen
}

// login dials addr and authenticates with the world's key, within limit.
func (w *world) login(limit time.Duration) error {
	c, err := net.DialTimeout("tcp", w.addr, limit)
	if err != nil {
		return err
	}
	c.SetDeadline(time.Now().Add(limit)) // a bound on a stuck handshake, not a timing
	cc, chans, reqs, err := gossh.NewClientConn(c, w.addr, &gossh.ClientConfig{
		User: "alice", Auth: []gossh.AuthMethod{gossh.PublicKeys(w.user)}, HostKeyCallback: gossh.InsecureIgnoreHostKey(),
	})
	if err != nil {
		c.Close()
		return err
	}
	return gossh.NewClient(cc, chans, reqs).Close()
}

// BenchmarkLoginUnderFlood measures how long an authorised user takes to
// log in (retrying at once after each refusal, as someone pressing Up and
// Enter would, for at most loginLimit) while 300 connections that never
// authenticate keep reopening against the default cap of 64. It reports
// the median and the slowest time to a successful login, and how many
// tries got no login at all. Run with -benchtime=20x.
func BenchmarkLoginUnderFlood(b *testing.B) {
	const loginLimit = 10 * time.Second
	for _, kind := range []floodKind{floodIdle, floodBanner, floodMixed} {
		b.Run(kind.String(), func(b *testing.B) {
			w := newWorld(b)
			w.start(nil)
			f := startFlood(b, w.addr, 300, kind, math.MaxInt64, time.Hour)
			f.waitDropped(b, 1) // the slots are full
			var times []time.Duration
			failed, attempts := 0, 0
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				for {
					attempts++
					err := w.login(loginLimit)
					if ended, ferr := f.state(); ended || ferr != nil {
						b.Fatalf("the flood ended (%v): the figures would not be under a flood", ferr)
					}
					if err == nil {
						times = append(times, time.Since(start))
						break
					}
					if time.Since(start) > loginLimit {
						failed++
						break
					}
				}
			}
			b.StopTimer()
			f.stop()
			if len(times) > 0 {
				slices.Sort(times)
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms/login-median")
				b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "ms/login-max")
			}
			b.ReportMetric(float64(failed), "no-login")
			b.ReportMetric(float64(attempts)/float64(b.N), "attempts/login")
			b.ReportMetric(float64(f.opened.Load())/b.Elapsed().Seconds(), "flood-conns/s")
		})
	}
}
