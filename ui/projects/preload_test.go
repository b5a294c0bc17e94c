package projects

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/ui/common"
)

// A list read ahead of the program is the tab's first list and only that:
// a project added after it was read is on the next load.
func TestPreloadIsTheFirstListOnly(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := host.Open(ctx, paths.Places{Home: dir, AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data")}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	add := func(name string) {
		t.Helper()
		root := filepath.Join(dir, "src", name)
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, _, err := h.Projects.Add(ctx, root, name, false); err != nil {
			t.Fatal(err)
		}
	}
	add("alpha")
	pre := StartPreload(ctx, h)
	<-pre.done
	add("beta")
	m := New(h, common.NewUI(common.NewStyles(lipgloss.NewRenderer(io.Discard))), Actions{})
	defer m.Close()
	m.UsePreload(pre)
	names := func(msg any) string {
		t.Helper()
		l, ok := msg.(loadedMsg)
		if !ok || l.err != nil {
			t.Fatalf("load gave %#v", msg)
		}
		var out []string
		for _, p := range l.list {
			out = append(out, p.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(m.load()()); got != "alpha" {
		t.Errorf("first list %q, want the one read ahead: alpha", got)
	}
	if got := names(m.load()()); got != "alpha,beta" {
		t.Errorf("next list %q, want alpha,beta", got)
	}
}
