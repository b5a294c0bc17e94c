//go:build linux

package main

import (
	"context"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// askOn runs darkBackground on a new pty whose terminal side answers the
// question with answer ("" for never), then calls then (if not nil), and
// returns what darkBackground decided and what was asked.
func askOn(t *testing.T, ctx context.Context, answer string, then func(), env map[string]string, bound time.Duration) (bool, string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	asked := make(chan string, 1)
	go func() {
		buf := make([]byte, len(backgroundQuery))
		n, _ := ptmx.Read(buf)
		asked <- string(buf[:n])
		if answer != "" {
			ptmx.WriteString(answer)
		}
		if then != nil {
			then()
		}
	}()
	dark := darkBackground(ctx, tty, tty, func(k string) string { return env[k] }, bound)
	return dark, <-asked
}

// The answer decides; a terminal that answers only the sentinel is not
// waited on for the bound (an hour here), nor is one whose context ends.
func TestDarkBackgroundAsksOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if dark, asked := askOn(t, ctx, "\x1b]11;rgb:ffff/ffff/ffff\x07\x1b[?62c", nil, nil, time.Hour); dark || asked != backgroundQuery {
		t.Errorf("light answer: dark = %v, asked %q", dark, asked)
	}
	if dark, _ := askOn(t, ctx, "\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[?62c", nil, nil, time.Hour); !dark {
		t.Errorf("dark answer: dark = false")
	}
	if dark, _ := askOn(t, ctx, "\x1b[?62c", nil, map[string]string{"COLORFGBG": "0;15"}, time.Hour); dark {
		t.Errorf("no OSC 11 but COLORFGBG light: dark = true")
	}
	if dark, _ := askOn(t, ctx, "\x1b[?62c", nil, nil, time.Hour); !dark {
		t.Errorf("no answer but the sentinel: dark = false, want the default")
	}
	if dark, _ := askOn(t, ctx, "", nil, map[string]string{"COLORFGBG": "0;15"}, 10*time.Millisecond); dark {
		t.Errorf("no answer within the bound, COLORFGBG light: dark = true")
	}
	cctx, cancel := context.WithCancel(ctx)
	if dark, _ := askOn(t, cctx, "", cancel, nil, time.Hour); !dark {
		t.Errorf("context ended: dark = false, want the default")
	}
}

// The terminal is left as it was: echo and line editing come back.
func TestDarkBackgroundRestoresTheTerminal(t *testing.T) {
	t.Parallel()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	before, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	raw := make(chan uint32, 1)
	go func() {
		buf := make([]byte, len(backgroundQuery))
		ptmx.Read(buf)
		if during, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS); err == nil {
			raw <- during.Lflag
		}
		close(raw)
		ptmx.WriteString("\x1b[?62c")
	}()
	darkBackground(context.Background(), tty, tty, func(string) string { return "" }, time.Hour)
	after, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if during := <-raw; during&(unix.ECHO|unix.ICANON) != 0 {
		t.Errorf("echo or line editing was on while the terminal answered: lflag %#x", during)
	}
	if *after != *before {
		t.Errorf("terminal settings after asking = %+v, want %+v", *after, *before)
	}
}
