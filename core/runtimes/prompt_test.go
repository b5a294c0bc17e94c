package runtimes

import (
	"strings"
	"testing"
)

// TestBasePromptIsHonestAboutBash: the model is told which tools are
// confined to the project and that bash is not.
func TestBasePromptIsHonestAboutBash(t *testing.T) {
	if strings.Contains(basePrompt, "you cannot reach outside it") {
		t.Error("the prompt says nothing can reach outside the project, but bash can")
	}
	for _, want := range []string{"read, write, edit, ls, grep and find", "bash is not confined", "approv"} {
		if !strings.Contains(basePrompt, want) {
			t.Errorf("the prompt does not say %q:\n%s", want, basePrompt)
		}
	}
}
