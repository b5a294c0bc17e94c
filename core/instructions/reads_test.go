package instructions

import "testing"

// The names a watcher counts: the candidates and the model's provider
// files in a root; AGENTS.md, the provider files and the guidance file
// in the agent directory. Other Markdown files are not the chain's.
func TestReadsNamesTheChainsFiles(t *testing.T) {
	r := New(Options{Model: Model{Provider: "anthropic", ID: "claude-x"}})
	for name, want := range map[string]bool{
		"AGENTS.override.md": true, "AGENTS.md": true, "AGENTS.MD": true, "CLAUDE.md": true, ".claude": true,
		"CODEX.md": false, "README.md": false, "notes.md": false, "agent-guidance.json": false, "settings.json": false,
	} {
		if got := r.ReadsInRoot(name); got != want {
			t.Errorf("ReadsInRoot(%q) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{
		"AGENTS.md": true, "CLAUDE.md": true, "agent-guidance.json": true,
		"AGENTS.override.md": false, "GEMINI.md": false, "README.md": false, "models.json": false,
	} {
		if got := r.ReadsInAgentDir(name); got != want {
			t.Errorf("ReadsInAgentDir(%q) = %v, want %v", name, got, want)
		}
	}
	// Guidance may name any file for a model: it counts, for that model.
	g, err := ParseGuidance([]byte(`{"models":{"my-*":["RULES.md"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	mine := New(Options{Model: Model{Provider: "openai", ID: "my-model"}, Guidance: g})
	if !mine.ReadsInRoot("RULES.md") || mine.ReadsInRoot("CODEX.md") || r.ReadsInRoot("RULES.md") {
		t.Error("a guidance file's own provider file is not counted for its model only")
	}
}
