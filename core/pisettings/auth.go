package pisettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// AuthFile is pi's key store inside the agent dir. pi-tui only reads it:
// it is never written, copied, printed or logged, and errors about it
// never quote its content.
const AuthFile = "auth.json"

// Entry types in auth.json.
const (
	AuthAPIKey = "api_key"
	AuthOAuth  = "oauth"
)

// maxAuthSize bounds how much of auth.json is read.
const maxAuthSize = 1 << 20

// AuthEntry is one provider's credential in auth.json. Only API keys are
// kept; of an OAuth login only the fact that it is there.
type AuthEntry struct {
	Provider string
	Type     string // api_key, oauth, or whatever else pi wrote
	Key      string // api_key entries: a value as pi reads it (!command, $VAR, a name, or the key)
	// Expires is when an oauth entry's access token expires, in
	// milliseconds since 1970 as pi writes it (0: not said). pi refreshes
	// it with the refresh token, which pi-tui never reads.
	Expires int64
}

// Auth is what auth.json holds for pi-tui.
type Auth struct {
	Path    string
	Entries []AuthEntry // sorted by provider
	// Warning is one sentence about the file that does not stop it from
	// being used (other users can read it).
	Warning string
}

// Entry returns the entry for a provider.
func (a Auth) Entry(provider string) (AuthEntry, bool) {
	for _, e := range a.Entries {
		if e.Provider == provider {
			return e, true
		}
	}
	return AuthEntry{}, false
}

// ReadAuth reads A/auth.json without blocking (a FIFO there is refused)
// and checks its type on the open descriptor. A missing file holds no
// keys and is no error. A file that is not a JSON object of entries is an
// error naming the file and the line and column, never its content. A
// file other users may read is still used, with a Warning that says so
// (pi writes it with mode 0600).
func ReadAuth(agentDir string) (Auth, error) {
	path := filepath.Join(agentDir, AuthFile)
	a := Auth{Path: path}
	data, fi, err := fsutil.ReadRegular(path, maxAuthSize)
	if errors.Is(err, fs.ErrNotExist) {
		return a, nil
	}
	if err != nil {
		return a, fmt.Errorf("read %s: %w", path, fsutil.PlainError(err))
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		a.Warning = fmt.Sprintf("%s can be read by other users (mode %04o): run chmod 600 %s", path, perm, path)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return a, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return a, JSONError(path, data, err)
		}
		return a, fmt.Errorf("%s must hold a JSON object of providers", path)
	}
	for name, v := range raw {
		var entry struct {
			Type json.RawMessage `json:"type"`
			Key  json.RawMessage `json:"key"`
			// Expires only: the tokens beside it are not decoded.
			Expires json.RawMessage `json:"expires"`
		}
		if err := json.Unmarshal(v, &entry); err != nil {
			return a, fmt.Errorf("%s: the entry for %q must be an object", path, name)
		}
		e := AuthEntry{Provider: name}
		if len(entry.Type) > 0 && json.Unmarshal(entry.Type, &e.Type) != nil {
			return a, fmt.Errorf("%s: the entry for %q has a \"type\" that is not a string", path, name)
		}
		if e.Type == AuthAPIKey && len(entry.Key) > 0 && json.Unmarshal(entry.Key, &e.Key) != nil {
			return a, fmt.Errorf("%s: the entry for %q has a \"key\" that is not a string", path, name)
		}
		if e.Type == AuthOAuth && len(entry.Expires) > 0 {
			var ms float64
			if json.Unmarshal(entry.Expires, &ms) == nil && ms > 0 && ms < 1<<62 {
				e.Expires = int64(ms)
			}
		}
		a.Entries = append(a.Entries, e)
	}
	sort.Slice(a.Entries, func(i, j int) bool { return a.Entries[i].Provider < a.Entries[j].Provider })
	return a, nil
}
