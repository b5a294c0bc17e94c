package providers

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

// inserted checks that after is before with one run of bytes added and
// returns that run: no other byte of the user's file changed.
func inserted(t *testing.T, before, after []byte) string {
	t.Helper()
	i := 0
	for i < len(before) && before[i] == after[i] {
		i++
	}
	tail := before[i:]
	if !bytes.HasSuffix(after, tail) || len(after) < len(before) {
		t.Fatalf("bytes outside the added provider changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	return string(after[i : len(after)-len(tail)])
}

func TestAddEndpointKeepsEveryOtherByte(t *testing.T) {
	cases := map[string]string{
		"comments and order": `{
	// my providers, in the order I like
	"providers": {
		"zeta": { "baseUrl": "http://z/v1", "api": "openai-completions", "models": [{"id": "z1"}] }, /* keep */
		"alpha": {
			"baseUrl": "http://a/v1", "api": "openai-completions",
			"models": [ { "id": "a1" } ] // trailing note
		}
	},
	"$schema": "https://pi.dev/schemas/models.schema.json"
}
`,
		"one line, CRLF":  "{ \"providers\": { \"a\": {\"baseUrl\": \"http://a/v1\", \"api\": \"openai-completions\"} } }\r\n",
		"empty providers": "{\n  \"providers\": {}\n}\n",
		"no providers":    "{\n  \"$schema\": \"https://pi.dev/schemas/models.schema.json\" // hi\n}",
		"only a comment":  "// nothing yet\n",
	}
	for name, before := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, pisettings.ModelsFile)
			os.WriteFile(path, []byte(before), 0o640)
			_, err := AddEndpoint(dir, Endpoint{Name: "lab", BaseURL: "http://127.0.0.1:8000/v1", KeyEnv: "LAB_KEY", Models: []string{"qwen3:8b", `we"ird`}})
			if err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(path)
			add := inserted(t, []byte(before), after)
			if !strings.Contains(add, `"lab"`) || !strings.Contains(add, `"apiKey": "$LAB_KEY"`) || !strings.Contains(add, `{ "id": "we\"ird" }`) {
				t.Fatalf("the added text lacks the provider:\n%s", add)
			}
			provs, err := pisettings.ReadModels(dir)
			if err != nil {
				t.Fatalf("pi-tui cannot read the result: %v\n%s", err, after)
			}
			var found bool
			for _, p := range provs {
				if p.Name == "lab" {
					found = p.BaseURL == "http://127.0.0.1:8000/v1" && p.API == "openai-completions" && len(p.Models) == 2
				}
			}
			if !found {
				t.Fatalf("lab is not read back as written: %+v\n%s", provs, after)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Errorf("the file's mode changed to %v", fi.Mode().Perm())
			}
		})
	}
}

func TestAddEndpointRefusesAndLeavesTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, pisettings.ModelsFile)
	for _, c := range []struct{ file, name, want string }{
		{`{"providers": {"lab": {}}}`, "lab", `already has a provider "lab"`},
		{`{"providers": [1]}`, "lab", `"providers" is not an object`},
		{`{"providers": {`, "lab", "not valid JSON"},
		{`[]`, "lab", "must hold a JSON object"},
		{`{}`, "bad name!", "must start with a letter or digit"},
	} {
		os.WriteFile(path, []byte(c.file), 0o600)
		_, err := AddEndpoint(dir, Endpoint{Name: c.name, BaseURL: "http://x/v1", Models: []string{"m"}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.file, err, c.want)
		}
		if got, _ := os.ReadFile(path); string(got) != c.file {
			t.Errorf("%s: the file was changed to %s", c.file, got)
		}
	}
}

func TestAddEndpointMakesAMissingFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent")
	if _, err := AddEndpoint(dir, Endpoint{Name: "lab", BaseURL: "http://x/v1", Models: []string{"m"}}); err != nil {
		t.Fatal(err)
	}
	provs, err := pisettings.ReadModels(dir)
	if err != nil || len(provs) != 1 || provs[0].Name != "lab" {
		t.Fatalf("%v %+v", err, provs)
	}
}
