package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// BenchmarkOneWritePrompt times the whole process of a headless prompt
// whose one tool call is a write (the fake model's), in a git repository
// of 10 and of 20,000 files that earlier runs have seen. Its checkpoint
// looks at the written file only, so the two should cost about the same
// (ADR 0087: at most 1.2 times).
func BenchmarkOneWritePrompt(b *testing.B) {
	worktreetest.Need(b)
	bin := buildBinary(b)
	for _, n := range []int{10, 20_000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			home := b.TempDir()
			fake := fakemodel.New(b, func(i int, req fakemodel.Request) fakemodel.Reply {
				if req.LastToolResult == "" {
					return fakemodel.Reply{Calls: []fakemodel.Call{{ID: fmt.Sprintf("w%d", i), Name: "write",
						Args: map[string]string{"path": "greet.txt", "content": fmt.Sprintf("run %d\n", i)}}}}
				}
				return fakemodel.Reply{Text: "Done."}
			})
			agentDir := filepath.Join(home, ".pi", "agent")
			worktreetest.Write(b, agentDir, "models.json", fake.ModelsJSON("openai-completions"))
			worktreetest.Write(b, agentDir, "settings.json", `{"defaultProvider":"fake","defaultModel":"m1"}`)
			root := filepath.Join(home, "repo")
			files := map[string]string{"greet.txt": "hello\n"}
			for i := range n {
				files[fmt.Sprintf("src/d%03d/f%05d.go", i/100, i)] = fmt.Sprintf("package d\n\n// F%d is file %d.\nfunc F%d() int { return %d }\n", i, i, i, i)
			}
			for p, body := range files {
				worktreetest.Write(b, root, p, body)
			}
			// Packed, as a cloned repository is: after a commit of 20,000
			// loose objects git would pack them in the background, during
			// the timed runs.
			worktreetest.Git(b, root, "init", "-q", "-b", "main")
			worktreetest.Git(b, root, "add", "-A")
			worktreetest.Git(b, root, "-c", "gc.auto=0", "commit", "-q", "-m", "first")
			worktreetest.Git(b, root, "gc", "-q")
			env := []string{"HOME=" + home, "PI_TUI_DATA_DIR=" + filepath.Join(home, "data"), "FAKE_API_KEY=k", "PATH=" + os.Getenv("PATH")}
			run := func(args ...string) {
				cmd := exec.Command(bin, args...)
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("pi-tui %v: %v\n%s", args, err, out)
				}
			}
			run("projects", "add", root, "--trust", "--name", "mono")
			run("prompt", "--project", "mono", "--yes", "write it") // the project's first run
			// What was just written goes to disk first: flushing it would
			// otherwise slow the timed runs' own syncs.
			syscall.Sync()
			for b.Loop() {
				run("prompt", "--project", "mono", "--yes", "write it")
			}
		})
	}
}
