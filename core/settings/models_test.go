package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAvailableModels(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if ms, err := AvailableModels(dir, get); err != nil || len(ms) != 0 {
		t.Fatalf("nothing configured = %v, %v", ms, err)
	}
	env["OPENAI_API_KEY"] = "sk-test"
	ms, _ := AvailableModels(dir, get)
	if len(ms) == 0 || ms[0].Provider != "openai" {
		t.Fatalf("with OPENAI_API_KEY = %v", ms)
	}
	os.WriteFile(filepath.Join(dir, ModelsFile), []byte(`{"providers":{"ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions","models":[{"id":"qwen3","name":"Qwen 3"}]},"openai":{"api":"openai-completions","models":[{"id":"custom"}]}}}`), 0o644)
	ms, err := AvailableModels(dir, get)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.String())
	}
	if strings.Join(names, ",") != "ollama/qwen3,openai/custom" {
		t.Errorf("models = %v", names)
	}
	os.WriteFile(filepath.Join(dir, ModelsFile), []byte(`{"providers":`), 0o644)
	if _, err := AvailableModels(dir, get); err == nil || !strings.Contains(err.Error(), ModelsFile) {
		t.Errorf("invalid models.json: %v", err)
	}
}
