package ui

import (
	"fmt"
	"testing"
)

// A new session's introduction says what the agent may do, to its end:
// the safety half ("as you, and … only once you approve them") was cut
// at the screen's edge.
func TestIntroductionIsWhole(t *testing.T) {
	t.Parallel()
	for _, size := range trialSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, echo, true)
			r.chat()
			intro := "Type a message and press enter. The agent works in proj: its file tools stay inside the project folder; " +
				"its commands run as you, and in the ask and auto-edits modes only once you approve them."
			frame := r.waitWhole(intro)
			assertFrame(t, frame, size.w, size.h)
			assertWordsWhole(t, frame, intro)
			r.final()
		})
	}
}
