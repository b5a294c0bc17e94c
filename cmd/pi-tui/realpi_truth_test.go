package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// What the real pi does, said as pi says it (issue 29): its errors and
// warnings, the model files it cannot read, the sessions it never wrote.

// answer is a model that answers every prompt at once.
func answer(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "the answer"} }

// piSessionFiles lists the session files in pi's sessions folder.
func piSessionFiles(t *testing.T, c *cli) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(c.env["HOME"], ".pi", "agent", "sessions", "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A models.json that does not parse is said with its line and column,
// and the model only that file declares is not run: pi ignores the file
// too. pi-tui used to launch pi anyway, which said only `Unknown provider
// "fake"`, and left an empty session file.
func TestRealPiBrokenModelsJSONIsSaidWithItsPosition(t *testing.T) {
	c := realPiCLI(t)
	fake, _ := realPiProject(t, c, true, answer)
	writeFile(t, filepath.Join(c.env["HOME"], ".pi", "agent", "models.json"),
		"{\"providers\": {\"fake\": {\"baseUrl\": \""+fake.URL+"\",\n  \"api\": \"openai-completions\" \"apiKey\": \"FAKE_API_KEY\"}}}\n")
	code, out, errs := c.run("", "prompt", "--project", "mono", "--engine", "pi", "hello")
	if code != 1 || !strings.Contains(errs, "models.json is not valid JSON at line 2, column 31") || !strings.Contains(errs, "pi cannot run fake/m1") ||
		strings.Contains(errs, "Unknown provider") || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, stderr %q (stdout %q)", code, errs, out)
	}
	if left := piSessionFiles(t, c); len(left) != 0 {
		t.Errorf("session files left: %v", left)
	}
}

// pi's refusal of a prompt ("No API key found…", three paragraphs) comes
// without \x0a in it, and the session pi never wrote to is not left
// behind as an empty file.
func TestRealPiRefusedPromptIsReadableAndLeavesNoFile(t *testing.T) {
	c := realPiCLI(t)
	realPiProject(t, c, true, answer)
	t.Setenv("ANTHROPIC_API_KEY", "")
	writeFile(t, filepath.Join(c.env["HOME"], ".pi", "agent", "settings.json"), `{"defaultProvider":"anthropic","defaultModel":"claude-sonnet-4-5","defaultThinkingLevel":"off"}`)
	code, out, errs := c.run("", "prompt", "--project", "mono", "--engine", "pi", "hello")
	if code != 1 || !strings.Contains(errs, "No API key found for anthropic. Use /login") || strings.Contains(errs, `\x0a`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if left := piSessionFiles(t, c); len(left) != 0 {
		t.Errorf("session files left: %v", left)
	}
}

// A model server pi cannot reach is named in a sentence with its
// endpoint (pi says "Connection error.: connect ECONNREFUSED …").
func TestRealPiUnreachableServerIsNamed(t *testing.T) {
	c := realPiCLI(t)
	realPiProject(t, c, true, answer)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("http://%s/v1", l.Addr())
	l.Close()
	agent := filepath.Join(c.env["HOME"], ".pi", "agent")
	writeFile(t, filepath.Join(agent, "models.json"), fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"FAKE_API_KEY","models":[{"id":"m1","contextWindow":200000,"maxTokens":4096}]}}}`, url))
	writeFile(t, filepath.Join(agent, "settings.json"), `{"defaultProvider":"fake","defaultModel":"m1","defaultThinkingLevel":"off","retry":{"enabled":false}}`)
	code, out, errs := c.run("", "prompt", "--project", "mono", "--engine", "pi", "hello")
	want := "fake: cannot reach the server at " + url + " (the connection was refused: is the server running?)"
	if code != 1 || !strings.Contains(errs, want) || strings.Contains(errs, "ECONNREFUSED") {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, out, errs, want)
	}
	if _, err := os.Stat(agent); err != nil {
		t.Fatal(err)
	}
}
