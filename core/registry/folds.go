package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pi-tui/pi-tui/store"
)

// foldsKey is the kv row (in the preferences namespace) that remembers
// which sections of the Projects list are folded: a JSON object from a
// section's key to true (folded) or false (open).
const foldsKey = "projectsFolded"

// FoldKey names a section of the Projects list whose folding is
// remembered: a group (by its name, ignoring case) or the archived.
func FoldKey(p Project) string {
	if Section(p) == SectionArchived {
		return "archived"
	}
	return "group:" + foldName(p.Group)
}

// Folds returns the remembered folding of the list's sections. A section
// not in it is open, except the archived, which are shown on request.
func (r *Registry) Folds(ctx context.Context) (map[string]bool, error) {
	kv, found, err := r.st.GetKV(ctx, migrationNamespace, foldsKey)
	if err != nil || !found {
		return map[string]bool{}, err
	}
	out := map[string]bool{}
	if json.Unmarshal([]byte(kv.Value), &out) != nil {
		return map[string]bool{}, nil // a damaged value folds nothing
	}
	return out, nil
}

// SetFolded remembers whether one section is folded. It changes that
// section only, so two pi-tui windows folding different groups keep both.
func (r *Registry) SetFolded(ctx context.Context, key string, folded bool) error {
	for range 5 {
		kv, found, err := r.st.GetKV(ctx, migrationNamespace, foldsKey)
		if err != nil {
			return err
		}
		m := map[string]bool{}
		var base *string
		if found {
			base = &kv.Value
			_ = json.Unmarshal([]byte(kv.Value), &m)
		}
		m[key] = folded
		b, _ := json.Marshal(m)
		err = r.st.CompareAndSwapKV(ctx, migrationNamespace, foldsKey, base, string(b))
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return fmt.Errorf("remember the folded groups: other windows kept changing them; try again")
}
