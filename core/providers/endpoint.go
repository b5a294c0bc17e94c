package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Bounds of asking an endpoint for its models: an endpoint that does not
// answer, answers with more than this, or lists more models than pi-tui
// adds gets a sentence and nothing is written.
const (
	ProbeTimeout = 15 * time.Second
	maxProbeBody = 8 << 20
	// MaxModels is the most models one added endpoint gets in
	// models.json: more is a catalogue (a router), not a server's list,
	// and would make every model picker unusable.
	MaxModels = 500
	maxIDLen  = 256
)

// APIs a compatible endpoint may speak, as pi names them.
var APIs = []string{"openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai"}

// nameRE is a name's letters; its length (at most 64) is checked apart:
// written {0,63}, compiling it cost every pi-tui command a millisecond.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// CheckName refuses a provider name pi could not take as written.
func CheckName(name string) error {
	if len(name) > 64 || !nameRE.MatchString(name) {
		return fmt.Errorf("the provider name %q must start with a letter or digit and hold only letters, digits, '.', '_' and '-' (at most 64)", name)
	}
	return nil
}

// Probe is what an endpoint said it serves.
type Probe struct {
	// BaseURL is the base pi sends requests to (…/v1), as it will be
	// written to models.json.
	BaseURL string
	// Asked is the URL that answered.
	Asked  string
	Models []string
}

// ProbeEndpoint asks base's GET /v1/models (or base/models when base
// already ends in /v1) for the models it serves, with key as a bearer
// token when there is one. Every failure is one sentence saying what the
// endpoint did; the key never appears in it.
func ProbeEndpoint(ctx context.Context, client *http.Client, base, key string) (Probe, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Probe{}, fmt.Errorf("the base URL %q must be an http:// or https:// address", base)
	}
	if u.User != nil {
		return Probe{}, errors.New("the base URL holds a user name or password: give the key with --api-key-env instead, so models.json does not keep it")
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	bases := []string{u.String()}
	if !strings.HasSuffix(u.Path, "/v1") {
		v1 := *u
		v1.Path += "/v1"
		bases = []string{v1.String(), u.String()}
	}
	if client == nil {
		client = &http.Client{Timeout: ProbeTimeout}
	}
	var first error
	for _, b := range bases {
		models, err := listModels(ctx, client, b+"/models", key)
		if err == nil {
			return Probe{BaseURL: b, Asked: b + "/models", Models: models}, nil
		}
		if first == nil {
			first = err
		}
		var nf notFound
		if !errors.As(err, &nf) {
			break // it answered something else than "no such path": that is the answer
		}
	}
	return Probe{}, first
}

type notFound struct{ url string }

func (e notFound) Error() string {
	return fmt.Sprintf("%s answered 404 Not Found: is this the base URL of an OpenAI-compatible server?", e.url)
}

func listModels(ctx context.Context, client *http.Client, u, key string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("cannot ask %s: %v", u, err)
	}
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s did not answer in time", u)
		}
		return nil, fmt.Errorf("%s did not answer: %s", u, plainNetError(err, key))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s stopped answering: %s", u, plainNetError(err, key))
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, notFound{u}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		if key == "" {
			return nil, fmt.Errorf("%s answered %s: it wants a key; name the variable that holds it with --api-key-env", u, resp.Status)
		}
		return nil, fmt.Errorf("%s answered %s: it refused the key", u, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s answered %s", u, resp.Status)
	case len(body) > maxProbeBody:
		return nil, fmt.Errorf("%s sent more than %d MiB for its model list; nothing was added", u, maxProbeBody>>20)
	}
	var list struct {
		Data *[]struct {
			ID json.RawMessage `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil || list.Data == nil {
		return nil, fmt.Errorf("%s did not answer with an OpenAI model list (a JSON object with \"data\"); nothing was added", u)
	}
	var ids []string
	seen := map[string]bool{}
	for _, m := range *list.Data {
		var id string
		if json.Unmarshal(m.ID, &id) != nil || !goodID(id) || seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	switch {
	case len(ids) == 0 && len(*list.Data) > 0:
		return nil, fmt.Errorf("%s listed %d models, none with an id pi could use; nothing was added", u, len(*list.Data))
	case len(ids) == 0:
		return nil, fmt.Errorf("%s lists no models; nothing was added", u)
	}
	return ids, nil
}

// Select picks the models to add: the ones named in wanted (each must be
// listed), else all of them when they are at most MaxModels.
func (p Probe) Select(wanted []string) ([]string, error) {
	if len(wanted) == 0 {
		if len(p.Models) > MaxModels {
			return nil, fmt.Errorf("%s lists %d models, more than the %d pi-tui adds; nothing was added: name the ones you use with --model", p.Asked, len(p.Models), MaxModels)
		}
		return p.Models, nil
	}
	var out []string
	for _, w := range wanted {
		if !slices.Contains(p.Models, w) {
			return nil, fmt.Errorf("%s does not list the model %q; nothing was added", p.Asked, w)
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	if len(out) > MaxModels {
		return nil, fmt.Errorf("%d models named, more than the %d pi-tui adds; nothing was added", len(out), MaxModels)
	}
	return out, nil
}

// goodID accepts a model id pi can send back as it came: text with no
// control, format or invisible characters, of a sane length.
func goodID(id string) bool {
	if id == "" || len(id) > maxIDLen || strings.TrimSpace(id) != id {
		return false
	}
	for _, r := range id {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// plainNetError is a network error without the key, should a server or
// proxy have echoed it.
func plainNetError(err error, key string) string {
	s := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		s = ue.Err.Error()
	}
	if key != "" {
		s = strings.ReplaceAll(s, key, "[key]")
	}
	return string(bytes.TrimSpace([]byte(s)))
}
