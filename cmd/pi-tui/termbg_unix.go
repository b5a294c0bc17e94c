//go:build unix

package main

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// askBackground sends backgroundQuery to out and reads the terminal's
// answers from in, with echo and line editing off, until the DA1 reply
// arrives, bound has passed or ctx ends. It returns the OSC 11 reply's
// payload, or nil. What else arrived meanwhile (keys typed during the
// wait) is dropped.
func askBackground(ctx context.Context, in, out *os.File, bound time.Duration) (osc []byte) {
	if ctx.Err() != nil {
		return nil
	}
	fd := int(in.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return nil
	}
	defer term.Restore(fd, old)
	// ctx's end wakes the poll below through this pipe.
	wake, woken, err := os.Pipe()
	if err != nil {
		return nil
	}
	defer wake.Close()
	defer woken.Close()
	stop := context.AfterFunc(ctx, func() { woken.Close() })
	defer stop()
	if _, err := out.WriteString(backgroundQuery); err != nil {
		return nil
	}
	deadline := time.Now().Add(bound)
	var buf []byte
	chunk := make([]byte, 256)
	for len(buf) < 4096 {
		left := time.Until(deadline)
		if left <= 0 {
			return osc
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(wake.Fd()), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 || fds[1].Revents != 0 || fds[0].Revents&unix.POLLIN == 0 {
			return osc
		}
		m, err := unix.Read(fd, chunk)
		if err != nil || m <= 0 {
			return osc
		}
		buf = append(buf, chunk[:m]...)
		var done bool
		if osc, done = scanReplies(buf); done {
			return osc
		}
	}
	return osc
}
