package ui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/internal/screentest"
	"github.com/pi-tui/pi-tui/store"
)

// BenchmarkFirstFrame2000 times what a user waits for after typing
// pi-tui: open the store, build the shell, start the program and draw the
// first frame that lists projects, with 2,000 projects registered (the
// process's own start, a few ms, is not included). Target: ≤ 150 ms/op.
func BenchmarkFirstFrame2000(b *testing.B) {
	dir := b.TempDir()
	pl := paths.Places{Home: dir, AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data")}
	st, err := store.Open(context.Background(), pl.Database(), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 2000 {
		if _, _, err := st.InsertProject(context.Background(), store.ProjectRow{ID: fmt.Sprintf("p%08x", i),
			Name: fmt.Sprintf("project-%04d", i), Root: filepath.Join(dir, "src", fmt.Sprint(i)), CreatedAt: int64(i)}); err != nil {
			b.Fatal(err)
		}
	}
	st.Close()
	b.ResetTimer()
	for range b.N {
		h, err := host.Open(context.Background(), pl, host.Options{})
		if err != nil {
			b.Fatal(err)
		}
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(termenv.Ascii)
		tm := teatest.NewTestModel(b, New(Options{Host: h, Renderer: r}), teatest.WithInitialTermSize(120, 40))
		teatest.WaitFor(b, tm.Output(), func(out []byte) bool { return bytes.Contains(out, []byte("project-1999")) },
			teatest.WithDuration(screentest.Limit), teatest.WithCheckInterval(time.Millisecond))
		b.StopTimer()
		tm.Quit()
		tm.WaitFinished(b, teatest.WithFinalTimeout(screentest.Limit))
		h.Close()
		b.StartTimer()
	}
}
