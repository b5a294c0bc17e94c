package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// BenchmarkOneWriteTurn is a whole turn (the model's call, a write, the
// model's answer) with the checkpoint store recording, in a project of
// 10 and of 20,000 files: the write's checkpoint looks at its file only,
// so the two cost the same. "off" is the turn without checkpoints.
func BenchmarkOneWriteTurn(b *testing.B) {
	for _, tc := range []struct {
		files int
		on    bool
	}{{10, false}, {10, true}, {20_000, true}, {100_000, true}} {
		name := fmt.Sprintf("files=%d", tc.files)
		if !tc.on {
			name += "/off"
		}
		b.Run(name, func(b *testing.B) {
			script := func(n int, req fakemodel.Request) fakemodel.Reply {
				if req.LastToolResult == "" {
					return fakemodel.Reply{Calls: []fakemodel.Call{{ID: fmt.Sprintf("w%d", n), Name: "write", Args: map[string]any{"path": "notes.txt", "content": fmt.Sprintf("note %d\n", n)}}}}
				}
				return fakemodel.Reply{Text: "done"}
			}
			var rec *checkpoints.Recorder
			h := newHarness(b, script, func(c *Config) {
				for i := range tc.files {
					d := filepath.Join(c.Root, fmt.Sprintf("d%04d", i/100))
					if i%100 == 0 {
						os.MkdirAll(d, 0o755)
					}
					os.WriteFile(filepath.Join(d, fmt.Sprintf("f%03d.go", i%100)), []byte(fmt.Sprintf("package d // %d\n", i)), 0o644)
				}
				if tc.on {
					st := checkpoints.Open(filepath.Join(b.TempDir(), "checkpoints"), checkpoints.Limits{})
					rec = st.Recorder(c.Session.ID(), c.Session.File(), c.Root)
					c.Checkpoints = toolpolicy.Checkpoints(rec)
				}
			})
			go func() {
				for range h.evs {
				}
			}()
			if rec != nil {
				if err := rec.Prewarm(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if _, err := h.ag.Prompt(context.Background(), "note it"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
