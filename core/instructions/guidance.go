package instructions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// GuidanceFile is the name of the optional provider-guidance configuration
// inside the agent directory. pi-agent-guidance reads the same file, so
// pi-tui accepts exactly its format and ignores keys it does not know.
const GuidanceFile = "agent-guidance.json"

// maxGuidanceBytes bounds how much of agent-guidance.json is read. A real
// file is a few hundred bytes; anything larger is treated as invalid rather
// than read without limit.
const maxGuidanceBytes = 1 << 20

// Guidance decides which provider-specific context files the current model
// receives and whether subdirectory context is delivered. It is immutable
// once built, so one value can be shared by concurrent resolutions.
type Guidance struct {
	providers map[string][]string // provider name, exactly as pi spells it -> files
	models    []modelRule         // in file order: the first match wins
	subdir    bool
	warnings  []string
}

type modelRule struct {
	pattern string // lower-cased; '*' matches any run of characters
	files   []string
}

// DefaultGuidance returns the built-in mapping used when agent-guidance.json
// is absent or invalid: anthropic reads CLAUDE.md, the OpenAI family reads
// CODEX.md, the Google family reads GEMINI.md, and subdirectory context is on.
func DefaultGuidance() *Guidance {
	return &Guidance{providers: defaultProviders(), subdir: true}
}

func defaultProviders() map[string][]string {
	claude, codex, gemini := []string{"CLAUDE.md"}, []string{"CODEX.md"}, []string{"GEMINI.md"}
	return map[string][]string{
		"anthropic":              claude,
		"openai":                 codex,
		"openai-codex":           codex,
		"azure-openai-responses": codex,
		"google":                 gemini,
		"google-gemini-cli":      gemini,
		"google-vertex":          gemini,
	}
}

// LoadGuidance reads agentDir/agent-guidance.json. A missing file is normal
// and yields the defaults silently. Any other problem (unreadable, not a
// regular file, bad JSON, a value of the wrong type anywhere, an unusable
// file name) yields the defaults plus exactly one warning naming the file,
// because a half-applied configuration would be harder to reason about than
// none. The returned Guidance is never nil and also keeps the warnings (see
// Warnings) so a Resolver can repeat them in every Chain.
func LoadGuidance(agentDir string) (*Guidance, []string) {
	path := filepath.Join(agentDir, GuidanceFile)
	data, err := readGuidanceFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultGuidance(), []string{}
	}
	if err == nil {
		var g *Guidance
		if g, err = ParseGuidance(data); err == nil {
			return g, []string{}
		}
	}
	w := fmt.Sprintf("ignoring %s: %v; using the default provider guidance", path, err)
	g := DefaultGuidance()
	g.warnings = []string{w}
	return g, []string{w}
}

func readGuidanceFile(path string) ([]byte, error) {
	// Open without blocking, then check the type on the descriptor: a
	// check by path before the open could be raced by a swap to a FIFO.
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, errors.New(shortErr(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, errors.New(shortErr(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", kindOfMode(fi.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxGuidanceBytes+1))
	if err != nil {
		return nil, errors.New(shortErr(err))
	}
	if len(data) > maxGuidanceBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxGuidanceBytes)
	}
	return data, nil
}

// ParseGuidance parses the contents of agent-guidance.json. It keeps the
// order of the "models" object, because the first matching pattern wins and
// a Go map would lose that order. It never panics; any error describes the
// first problem found.
func ParseGuidance(data []byte) (*Guidance, error) {
	g := DefaultGuidance()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := expectDelim(dec, '{', "the file"); err != nil {
		return nil, err
	}
	var models []modelRule
	haveModels := false
	for dec.More() {
		key, err := stringToken(dec, "a key")
		if err != nil {
			return nil, err
		}
		switch key {
		case "providers":
			rules, err := parseNameMap(dec, "providers")
			if err != nil {
				return nil, err
			}
			for _, r := range rules {
				g.providers[r.pattern] = r.files // pi compares provider names exactly
			}
		case "models":
			rules, err := parseNameMap(dec, "models")
			if err != nil {
				return nil, err
			}
			for i := range rules {
				rules[i].pattern = strings.ToLower(rules[i].pattern)
			}
			models, haveModels = rules, true
		case "subdirectoryContext":
			tok, err := dec.Token()
			if err != nil {
				return nil, syntaxErr(err)
			}
			b, ok := tok.(bool)
			if !ok {
				return nil, errors.New(`"subdirectoryContext" must be true or false`)
			}
			g.subdir = b
		default:
			// Keys owned by other tools are skipped, never rejected.
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, syntaxErr(err)
			}
		}
	}
	if err := expectDelim(dec, '}', "the file"); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON object")
	}
	if haveModels {
		g.models = models
	}
	return g, nil
}

// parseNameMap parses {"name": ["file", ...], ...} keeping key order.
func parseNameMap(dec *json.Decoder, what string) ([]modelRule, error) {
	if err := expectDelim(dec, '{', `"`+what+`"`); err != nil {
		return nil, err
	}
	var out []modelRule
	for dec.More() {
		name, err := stringToken(dec, "a key in "+what)
		if err != nil {
			return nil, err
		}
		if err := expectDelim(dec, '[', fmt.Sprintf("%q in %q", name, what)); err != nil {
			return nil, err
		}
		files := []string{}
		for dec.More() {
			f, err := stringToken(dec, fmt.Sprintf("an entry of %q in %q", name, what))
			if err != nil {
				return nil, err
			}
			if !validFileName(f) {
				return nil, fmt.Errorf("%q in %q names %q, which is not a plain file name", name, what, f)
			}
			files = append(files, f)
		}
		if err := expectDelim(dec, ']', ""); err != nil {
			return nil, err
		}
		out = append(out, modelRule{pattern: name, files: files})
	}
	if err := expectDelim(dec, '}', ""); err != nil {
		return nil, err
	}
	return out, nil
}

// validFileName accepts only names of files directly inside a directory: a
// provider file is looked up beside the instruction files, never elsewhere.
func validFileName(f string) bool {
	return f != "" && f != "." && f != ".." && !strings.ContainsAny(f, "/\\\x00")
}

func expectDelim(dec *json.Decoder, want json.Delim, what string) error {
	tok, err := dec.Token()
	if err != nil {
		return syntaxErr(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		switch want {
		case '{':
			return fmt.Errorf("%s must be a JSON object", what)
		case '[':
			return fmt.Errorf("%s must be a list of file names", what)
		}
		return errors.New("malformed JSON")
	}
	return nil
}

func stringToken(dec *json.Decoder, what string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", syntaxErr(err)
	}
	s, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("%s must be a string", what)
	}
	return s, nil
}

func syntaxErr(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("unexpected end of JSON")
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// Warnings returns the problems found while loading the configuration (at
// most one). A Resolver repeats them in every Chain so that the CLI and the
// UI show why the defaults are in effect.
func (g *Guidance) Warnings() []string {
	if g == nil {
		return nil
	}
	return append([]string(nil), g.warnings...)
}

// FilesFor returns the provider files the model should receive in every
// directory, in order. The first "models" pattern matching the model ID
// wins over the "providers" mapping and the defaults; an empty list
// disables provider files. A model without a provider gets none, so the
// CLI without --model shows only the shared instruction files.
func (g *Guidance) FilesFor(m Model) []string {
	if g == nil || m.Provider == "" {
		return nil
	}
	id := strings.ToLower(m.ID)
	for _, r := range g.models {
		if matchPattern(r.pattern, id) {
			return r.files
		}
	}
	return g.providers[m.Provider]
}

// SubdirectoryContext reports whether nested chains should be delivered to
// the model with file-path tool results. The resolver itself ignores the
// switch; the host consults it before asking for a target's chain.
func (g *Guidance) SubdirectoryContext() bool {
	return g == nil || g.subdir
}

// matchPattern matches a lower-cased glob in which '*' stands for any run
// of characters and every other character is literal. It runs in
// O(len(p)*len(s)) worst case without recursion.
func matchPattern(p, s string) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
