package pisettings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// ThinkingLevelKey is the settings.json key of the default thinking level.
const ThinkingLevelKey = "defaultThinkingLevel"

// ReadThinkingLevel returns defaultThinkingLevel from A/settings.json, as
// written ("" when unset or the file is missing). Whether it names a
// level is for the caller to judge. An unreadable or invalid file is an
// error naming the file.
func ReadThinkingLevel(agentDir string) (string, error) {
	path := filepath.Join(agentDir, FileName)
	data, _, err := fsutil.ReadRegular(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, fsutil.PlainError(err))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return "", JSONError(path, data, err)
	}
	v, ok := raw[ThinkingLevelKey]
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("%s: %s must be a string", path, ThinkingLevelKey)
	}
	return strings.TrimSpace(s), nil
}
