package providers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/internal/atomicfile"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Endpoint is an OpenAI-compatible server to add to models.json.
type Endpoint struct {
	Name    string
	BaseURL string // as Probe found it
	API     string // default openai-completions
	// KeyEnv names the variable holding the key; "" leaves the key to
	// pi's auth.json (pi-tui login NAME --api-key).
	KeyEnv string
	Models []string
}

// maxSharedFile bounds the shared files pi-tui changes.
const maxSharedFile = 16 << 20

// AddEndpoint adds e to agentDir's models.json as pi expects it, under
// "providers", as the last provider: every other byte of the file
// (comments, order, layout) stays as it was. A provider of that name
// already there is refused, never replaced. A missing file is made.
func AddEndpoint(agentDir string, e Endpoint) (string, error) {
	path := filepath.Join(agentDir, pisettings.ModelsFile)
	if err := CheckName(e.Name); err != nil {
		return path, err
	}
	if e.API == "" {
		e.API = "openai-completions"
	}
	value, err := endpointJSON(e)
	if err != nil {
		return path, err
	}
	return path, spliceFile(path, 0o600, func(d *doc) ([]byte, error) {
		if d == nil {
			k, _ := jsonQuote(e.Name)
			return []byte("{\n  \"providers\": {\n    " + k + ": " + strings.ReplaceAll(value, "\n", "\n    ") + "\n  }\n}\n"), nil
		}
		provs, _, ok := d.find(d.root(), "providers")
		if !ok {
			return d.insertMember(d.root(), "providers", "{\n  "+mustQuote(e.Name)+": "+strings.ReplaceAll(value, "\n", "\n  ")+"\n}"), nil
		}
		if d.raw[provs.value.start] != '{' {
			return nil, fmt.Errorf("%s: \"providers\" is not an object; it was left as it is", path)
		}
		if _, _, dup := d.find(provs.value.start, e.Name); dup {
			return nil, fmt.Errorf("%s already has a provider %q: choose another name, or change that one by hand", path, e.Name)
		}
		return d.insertMember(provs.value.start, e.Name, value), nil
	})
}

func mustQuote(s string) string {
	q, _ := jsonQuote(s)
	return q
}

// endpointJSON lays the provider out as pi's documentation does.
func endpointJSON(e Endpoint) (string, error) {
	var b strings.Builder
	b.WriteString("{\n  \"baseUrl\": " + mustQuote(e.BaseURL) + ",\n  \"api\": " + mustQuote(e.API) + ",\n")
	if e.KeyEnv != "" {
		if !isEnvName(e.KeyEnv) {
			return "", fmt.Errorf("--api-key-env %q is not a variable name (letters, digits and _, not starting with a digit)", e.KeyEnv)
		}
		b.WriteString("  \"apiKey\": " + mustQuote("$"+e.KeyEnv) + ",\n")
	}
	b.WriteString("  \"models\": [")
	for i, id := range e.Models {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    { \"id\": " + mustQuote(id) + " }")
	}
	if len(e.Models) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}")
	return b.String(), nil
}

func isEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// spliceFile changes the shared JSON file at path: change gets the
// parsed file (nil when there is none) and returns the new bytes, which
// are written atomically with the file's mode (newMode for a new file),
// through a symlink to its target. A file that cannot be parsed is left
// untouched and reported.
func spliceFile(path string, newMode fs.FileMode, change func(*doc) ([]byte, error)) error {
	data, fi, err := fsutil.ReadRegular(path, maxSharedFile)
	var d *doc
	mode := newMode
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read %s: %w; it was left as it is", path, fsutil.PlainError(err))
	case len(strings.TrimSpace(string(pisettings.StripJSONComments(data)))) == 0:
		// An empty file (or only comments): start afresh after its text.
	default:
		if d, err = newDoc(path, data); err != nil {
			return err
		}
		mode = fi.Mode().Perm()
	}
	out, err := change(d)
	if err != nil {
		return err
	}
	if d == nil && len(data) > 0 {
		out = append(append([]byte(nil), data...), out...)
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, fsutil.PlainError(err))
	}
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	if err := atomicfile.Write(target, out, mode); err != nil {
		return fmt.Errorf("write %s: %w; the file is unchanged", path, err)
	}
	return nil
}
