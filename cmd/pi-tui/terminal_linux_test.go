//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/store"
)

// The two questions termenv asks a terminal: its background colour and,
// as the sentinel, the cursor position.
var terminalQueries = []string{"\x1b]11;?", "\x1b[6n"}

// fakeTerminal is a pseudo-terminal with no emulator behind it: it keeps
// what the program writes and answers the background question only if
// told to (an Emacs shell buffer or a bare pty answers nothing).
type fakeTerminal struct {
	ptmx   *os.File
	answer string          // written back once, when the program asks OSC 11
	ctx    context.Context // ends shortly before the test's deadline

	mu   sync.Mutex
	out  []byte        // all the program wrote to its terminal
	grew chan struct{} // closed, and replaced, when out grows or the terminal closes
	done chan struct{} // closed when the program has closed the terminal
}

// startOnTerminal starts bin with args, in dir, with a new fakeTerminal
// as its controlling terminal, standard input, output and error. A
// program still running shortly before the test's deadline is killed.
func startOnTerminal(tb testing.TB, bin, dir string, env []string, answer string, args ...string) (*exec.Cmd, *fakeTerminal) {
	tb.Helper()
	ctx := context.Background()
	if t, ok := tb.(*testing.T); ok {
		if d, ok := t.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, d.Add(-time.Until(d)/10))
			tb.Cleanup(cancel)
		}
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		tb.Skipf("no pseudo-terminal here: %v", err)
	}
	tb.Cleanup(func() { ptmx.Close() })
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 30, Cols: 100}); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tty.Close() // the child holds the only other end: reads end when it exits
	f := &fakeTerminal{ptmx: ptmx, answer: answer, ctx: ctx, grew: make(chan struct{}), done: make(chan struct{})}
	go f.read()
	return cmd, f
}

func (f *fakeTerminal) read() {
	defer close(f.done)
	buf := make([]byte, 4096)
	for {
		n, err := f.ptmx.Read(buf) // EIO once the child has closed the terminal
		f.mu.Lock()
		f.out = append(f.out, buf[:n]...)
		ask := f.answer != "" && bytes.Contains(f.out, []byte(terminalQueries[0]))
		close(f.grew)
		f.grew = make(chan struct{})
		f.mu.Unlock()
		if ask {
			f.ptmx.WriteString(f.answer)
			f.answer = ""
		}
		if err != nil {
			return
		}
	}
}

// output is what the program has written so far.
func (f *fakeTerminal) output() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.out)
}

// waitFor waits until the program has written s. It fails the test,
// showing what was written, if the terminal closes first or the test is
// about to reach its deadline.
func (f *fakeTerminal) waitFor(t testing.TB, s string) {
	t.Helper()
	for {
		f.mu.Lock()
		found, grew := bytes.Contains(f.out, []byte(s)), f.grew
		f.mu.Unlock()
		if found {
			return
		}
		select {
		case <-grew:
		case <-f.done:
			if !strings.Contains(f.output(), s) {
				t.Fatalf("the terminal closed before %q:\n%q", s, f.output())
			}
			return
		case <-f.ctx.Done():
			t.Fatalf("%q never came on the terminal:\n%q", s, f.output())
		}
	}
}

// runOnMute runs bin with args on a terminal that answers nothing and
// returns what it wrote there and its exit status, once it has exited.
func runOnMute(tb testing.TB, bin string, env []string, args ...string) (string, int) {
	tb.Helper()
	cmd, f := startOnTerminal(tb, bin, "", env, "", args...)
	cmd.Wait()
	<-f.done
	f.ptmx.Close()
	return f.output(), cmd.ProcessState.ExitCode()
}

// terminalEnv is a user's environment on a colour terminal.
func terminalEnv(home string) []string {
	return []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color",
		"COLORTERM=truecolor",
		"PI_TUI_DATA_DIR=" + filepath.Join(home, "data"),
		"PI_CODING_AGENT_DIR=" + filepath.Join(home, "agent"),
	}
}

// Commands that print never ask the terminal anything: on one that
// answers nothing they used to wait 5 s and leave the questions in front
// of their output. On the terminal, memory's control characters are shown
// as text; into a pipe it is the same bytes that were set.
func TestPrintingCommandsNeverQueryTheTerminal(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	home := t.TempDir()
	env := terminalEnv(home)
	repo := mkdir(t, home, "shop")
	memoryText := "Deploy with care.\n\x1b]0;pwned\x07 title"

	piped := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("pi-tui %s: %v: %s", strings.Join(args, " "), err, errb.String())
		}
		return out.String()
	}
	piped("", "projects", "add", repo, "--name", "shop")
	piped(memoryText, "memory", "set", "shop", "--file", "-")
	if got := piped("", "memory", "show", "shop"); got != memoryText+"\n" {
		t.Errorf("memory show into a pipe = %q, want the bytes set, %q", got, memoryText+"\n")
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"memory", "show", "shop"}, 0, `Deploy with care.` + "\r\n" + `\x1b]0;pwned\x07 title`},
		{[]string{"memory", "show", "--json", "shop"}, 0, `"entries"`},
		{[]string{"projects", "list"}, 0, "shop"},
		{[]string{"projects", "list", "--json"}, 0, `"name": "shop"`},
		{[]string{"instructions", "--project", "shop"}, 0, "No instruction files apply"},
		{[]string{"sessions", "list", "shop"}, 0, "no sessions"},
		{[]string{"help"}, 0, "pi-tui projects list"},
		{[]string{"help", "memory"}, 0, "Usage: pi-tui memory show"},
		{[]string{"--version"}, 0, "pi-tui"},
		{[]string{"completion", "bash"}, 0, "_pi_tui"},
		{[]string{"memory", "show", "nosuch"}, 1, `no project matches "nosuch"`},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
	} {
		out, code := runOnMute(t, bin, env, c.args...)
		name := "pi-tui " + strings.Join(c.args, " ")
		for _, q := range terminalQueries {
			if strings.Contains(out, q) {
				t.Errorf("%s asked the terminal %q:\n%q", name, q, out)
			}
		}
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want %d, with %q in:\n%q", name, code, c.code, c.want, out)
		}
		if strings.Contains(out, "\x1b]0;pwned") {
			t.Errorf("%s let the terminal act on memory's escape sequence:\n%q", name, out)
		}
	}
}

// The terminal UI asks the background once, before its first frame, and
// draws with colours for what the terminal said: light ones on a light
// background; dark ones when nothing answers, after a short bound.
func TestUIAsksTheBackgroundOnceBeforeItsFirstFrame(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	for _, c := range []struct {
		name, answer string
		accent       string // the active tab's colour
	}{
		{"a terminal that answers nothing", "", "38;2;179;157;255"},
		{"a light terminal", "\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c", "38;2;89;63;192"},
		{"a dark terminal", "\x1b]11;rgb:1c1c/1c1c/1c1c\x07\x1b[?1;2c", "38;2;179;157;255"},
		{"a terminal that only answers the sentinel", "\x1b[?6c", "38;2;179;157;255"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			cmd, f := startOnTerminal(t, bin, home, terminalEnv(home), c.answer)
			f.waitFor(t, "Projects")
			f.waitFor(t, c.accent)
			out := f.output()
			frame := strings.Index(out, "\x1b[?1049h") // the alternate screen: the UI's first frame
			if frame < 0 || strings.Count(out, terminalQueries[0]) != 1 || strings.Index(out, terminalQueries[0]) > frame {
				t.Errorf("want one background question before the first frame:\n%q", out)
			}
			if strings.Contains(out, terminalQueries[1]) {
				t.Errorf("the UI asked for the cursor position:\n%q", out)
			}
			cmd.Process.Signal(syscall.SIGTERM)
			waitFor(t, "pi-tui to exit", func() error { return cmd.Wait() })
			if strings.Count(f.output(), terminalQueries[0]) != 1 {
				t.Errorf("the UI asked the background again:\n%q", f.output())
			}
		})
	}
}

// BenchmarkMemoryShowOnMuteTerminal times `pi-tui memory show` on a
// terminal that answers nothing, the whole process: it waited 5 s for
// the answer to a question it never needed.
func BenchmarkMemoryShowOnMuteTerminal(b *testing.B) {
	bin := buildBinary(b)
	home := b.TempDir()
	env := terminalEnv(home)
	repo := filepath.Join(home, "shop")
	os.Mkdir(repo, 0o755)
	for _, args := range [][]string{{"projects", "add", repo, "--name", "shop"}, {"memory", "set", "shop", "--file", "-"}} {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Stdin = env, strings.NewReader("Deploy with care.")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v %s", args, err, out)
		}
	}
	for b.Loop() {
		if out, code := runOnMute(b, bin, env, "memory", "show", "shop"); code != 0 || !strings.Contains(out, "Deploy with care.") {
			b.Fatalf("memory show: exit %d: %q", code, out)
		}
	}
}

// BenchmarkUIFirstFrame times the terminal UI from start to its first
// frame on a terminal that answers the background question, and on one
// that answers nothing (the bound); "answering-2000" is the first one
// with 2,000 projects registered, until the last of them is on screen
// (the README's Benchmarks table quotes it; issue 21's goal is 40 ms
// beyond the start of a trivial program on the same pseudo-terminal).
func BenchmarkUIFirstFrame(b *testing.B) {
	bin := buildBinary(b)
	answer := "\x1b]11;rgb:0000/0000/0000\x07\x1b[?62c"
	for _, c := range []struct {
		name, answer, want string
		projects           int
	}{
		{"answering", answer, "Projects", 0},
		{"mute", "", "Projects", 0},
		{"answering-2000", answer, "project-1999", 2000},
	} {
		b.Run(c.name, func(b *testing.B) {
			home := b.TempDir()
			if c.projects > 0 {
				seedProjects(b, home, c.projects)
			}
			for b.Loop() {
				cmd, f := startOnTerminal(b, bin, home, terminalEnv(home), c.answer)
				f.waitFor(b, c.want)
				b.StopTimer() // the frame is there; winding down is not timed
				cmd.Process.Signal(syscall.SIGTERM)
				cmd.Wait()
				<-f.done
				f.ptmx.Close()
				b.StartTimer()
			}
		})
	}
}

// seedProjects registers n projects named project-0000… in the data dir
// terminalEnv(home) names, their folders absent (a stat each, as for
// folders that exist).
func seedProjects(b *testing.B, home string, n int) {
	db := paths.Places{DataDir: filepath.Join(home, "data")}.Database() // as terminalEnv has it
	st, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for i := range n {
		if _, _, err := st.InsertProject(context.Background(), store.ProjectRow{ID: fmt.Sprintf("p%08x", i),
			Name: fmt.Sprintf("project-%04d", i), Root: filepath.Join(home, "src", fmt.Sprint(i)), CreatedAt: int64(i)}); err != nil {
			b.Fatal(err)
		}
	}
}
