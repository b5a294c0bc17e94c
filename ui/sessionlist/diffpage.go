package sessionlist

import (
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/diffview"
)

// newDiffPage shows a worktree's diff on the scrollable diff page every
// diff of pi-tui's shares (ui/diffview).
func newDiffPage(ui *common.UI, branch, text string) common.Layer {
	return diffview.NewPage(ui, "Diff · "+branch, text, "No changes against the base yet.")
}
