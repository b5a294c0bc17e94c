package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the master end plays the person at the
// keyboard, the slave end is pi-tui's terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here (%v)", err)
	}
	t.Cleanup(func() { m.Close() })
	rc, err := m.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n uint32
	var ioErr error
	err = rc.Control(func(fd uintptr) {
		var unlock int32
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
			ioErr = e
			return
		}
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
			ioErr = e
		}
	})
	if err != nil || ioErr != nil {
		t.Skipf("cannot set up a pseudo-terminal (%v, %v)", err, ioErr)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("cannot open the pseudo-terminal's slave (%v)", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// On a terminal, `projects add ~` asks a second question, and only "y"
// adds the folder.
func TestProjectsAddBroadRootAsksOnATerminal(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{"n", "y"} {
		t.Run(answer, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			master, slave := openPTY(t)
			var out bytes.Buffer
			code := make(chan int, 1)
			go func() {
				code <- run(context.Background(), []string{"projects", "add", "~"}, slave, &out, slave, func(k string) string { return c.env[k] })
			}()
			// Read the terminal until the question is asked, or pi-tui ends
			// without asking.
			chunks, done := make(chan []byte), make(chan struct{})
			defer close(done)
			go func() {
				defer close(chunks)
				for {
					buf := make([]byte, 4096)
					n, err := master.Read(buf)
					if err != nil {
						return
					}
					select {
					case chunks <- buf[:n]:
					case <-done:
						return
					}
				}
			}()
			var screen bytes.Buffer
			for !strings.Contains(screen.String(), "Add it anyway? [y/N] ") {
				select {
				case b, ok := <-chunks:
					if !ok {
						t.Fatalf("the terminal closed before the question:\n%s", screen.String())
					}
					screen.Write(b)
				case got := <-code:
					t.Fatalf("pi-tui ended (exit %d) without asking; terminal:\n%s\nstdout: %s", got, screen.String(), out.String())
				}
			}
			if !strings.Contains(screen.String(), "is your home folder: the agent's file tools will reach everything below it.") {
				t.Errorf("the question does not say why:\n%s", screen.String())
			}
			if _, err := master.Write([]byte(answer + "\n")); err != nil {
				t.Fatal(err)
			}
			got := <-code
			list := c.ok("projects", "list")
			switch answer {
			case "y":
				if got != 0 || !strings.Contains(out.String(), "added") || strings.Contains(list, "No projects yet") {
					t.Errorf("yes: exit %d, %s\n%s", got, out.String(), list)
				}
			default:
				if got != 1 || !strings.Contains(list, "No projects yet") {
					t.Errorf("no: exit %d\n%s", got, list)
				}
			}
		})
	}
}
