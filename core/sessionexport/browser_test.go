package sessionexport

import (
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/e2egate"
)

const chromium = "/usr/bin/chromium"

// TestHTMLInARealBrowser opens the exported page in headless Chromium: the
// page as the browser built it holds no element the session's text tried
// to inject, the calls are folded, and the screenshot shows the page (the
// user message's background colour is on it). A browser start costs
// seconds of CPU, so it is in the end-to-end suite.
func TestHTMLInARealBrowser(t *testing.T) {
	e2egate.Require(t, "a headless browser")
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("headless browser test: " + chromium + " is not installed (apt-get install chromium)")
	}
	page := filepath.Join(t.TempDir(), "session.html")
	if err := os.WriteFile(page, []byte(render(t, branched(t), Options{Format: HTML})), 0o644); err != nil {
		t.Fatal(err)
	}
	browse := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
			"--user-data-dir=" + t.TempDir(), "--force-color-profile=srgb", "--force-prefers-color-scheme=light"}
		cmd := exec.CommandContext(ctx, chromium, append(append(base, args...), "file://"+page)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chromium %v: %v", args, err)
		}
		return string(out)
	}

	dom := browse("--dump-dom")
	if strings.Contains(dom, "<script") || !strings.Contains(dom, "fix &lt;script&gt;") {
		t.Errorf("the browser's DOM holds the session's markup as elements:\n%s", dom)
	}
	if n := strings.Count(dom, "<details"); n != 2 {
		t.Errorf("the browser's DOM has %d folded blocks, want 2 (thinking, the edit call)", n)
	}

	shot := filepath.Join(t.TempDir(), "shot.png")
	browse("--screenshot="+shot, "--window-size=1000,1200", "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	// The user message's box is drawn in #eef4ff.
	userBG, b := 0, img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == 0xee && g>>8 == 0xf4 && bl>>8 == 0xff {
				userBG++
			}
		}
	}
	if userBG < 500 {
		t.Errorf("the screenshot shows %d points of the user message's colour: the page was not drawn as styled", userBG)
	}
	if dir := os.Getenv("PI_TUI_SCREENSHOTS"); dir != "" {
		b, _ := os.ReadFile(shot)
		os.WriteFile(filepath.Join(dir, "export.png"), b, 0o644)
	}
}
