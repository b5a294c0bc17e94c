package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/pi-tui/pi-tui/internal/atomicfile"
	"github.com/pi-tui/pi-tui/internal/fsutil"
	"github.com/pi-tui/pi-tui/store"
)

// Namespace is the kv namespace of the rules: key the project's canonical
// root (so relocating a project moves its rules), value a JSON list.
const Namespace = "approvalRules"

// ExportName is the copy of a project's rules pi-tui writes next to pi's
// project settings, in <root>/.pi/. It is never read.
const ExportName = "pi-tui-approvals.json"

// ExportPath is where a project's copy of its rules is written.
func ExportPath(root string) string { return filepath.Join(root, ".pi", ExportName) }

// Store reads and writes the rules in pi-tui's store. It holds no state of
// its own: every program of a host may make one.
type Store struct{ st *store.Store }

// New returns the rules of st.
func New(st *store.Store) *Store { return &Store{st: st} }

// Rules returns a project's rules, oldest first. A value that cannot be
// read gives an error, never rules half read.
func (s *Store) Rules(ctx context.Context, root string) ([]Rule, error) {
	kv, found, err := s.st.GetKV(ctx, Namespace, root)
	if err != nil || !found {
		return nil, err
	}
	return decode(root, kv.Value)
}

func decode(root, value string) ([]Rule, error) {
	var rules []Rule
	if err := json.Unmarshal([]byte(value), &rules); err != nil {
		return nil, fmt.Errorf("the approval rules of %s cannot be read: %w", root, err)
	}
	return rules, nil
}

// All returns every project's rules, keyed by root.
func (s *Store) All(ctx context.Context) (map[string][]Rule, error) {
	kv, err := s.st.KVNamespace(ctx, Namespace)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]Rule, len(kv))
	for root, v := range kv {
		rules, err := decode(root, v)
		if err != nil {
			return nil, err
		}
		out[root] = rules
	}
	return out, nil
}

// Add keeps a rule for the project (once: an equal rule is not added
// again) and rewrites the project's copy. A copy that cannot be written
// is reported after the rule was kept: the rule is in force either way.
func (s *Store) Add(ctx context.Context, root string, r Rule) error {
	if err := r.Validate(); err != nil {
		return err
	}
	return s.update(ctx, root, func(rules []Rule) []Rule {
		if slices.Contains(rules, r) {
			return rules
		}
		return append(rules, r)
	})
}

// Delete removes a rule of the project and rewrites the copy.
func (s *Store) Delete(ctx context.Context, root string, r Rule) error {
	return s.update(ctx, root, func(rules []Rule) []Rule {
		return slices.DeleteFunc(rules, func(x Rule) bool { return x == r })
	})
}

// update changes the rules with compare-and-swap, so two programs adding
// rules at once both keep theirs.
func (s *Store) update(ctx context.Context, root string, change func([]Rule) []Rule) error {
	for range 20 {
		kv, found, err := s.st.GetKV(ctx, Namespace, root)
		if err != nil {
			return err
		}
		var rules []Rule
		var base *string
		if found {
			if rules, err = decode(root, kv.Value); err != nil {
				return err
			}
			base = &kv.Value
		}
		rules = change(rules)
		if len(rules) == 0 {
			if found {
				err = s.st.CompareAndDeleteKV(ctx, Namespace, root, kv.Value)
			}
		} else {
			data, _ := json.Marshal(rules)
			err = s.st.CompareAndSwapKV(ctx, Namespace, root, base, string(data))
		}
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return err
		}
		if err := export(root, rules); err != nil {
			return &CopyError{Path: ExportPath(root), Err: err}
		}
		return nil
	}
	return errors.New("the approval rules kept changing while being saved; try again")
}

// CopyError says the rules were saved but their copy in the project
// folder could not be written: the rules are in force.
type CopyError struct {
	Path string
	Err  error
}

func (e *CopyError) Error() string {
	return "the rules are saved, but their copy " + e.Path + " could not be written: " + e.Err.Error()
}

func (e *CopyError) Unwrap() error { return e.Err }

// exported is the copy's shape: a marker saying pi-tui wrote it (so a
// file of the same name the repository ships is never overwritten), a
// note saying the file is a copy, and the rules.
type exported struct {
	WrittenBy string `json:"writtenBy"`
	Note      string `json:"note"`
	Rules     []Rule `json:"rules"`
}

// writtenBy is the copy's marker.
const writtenBy = "pi-tui"

const exportNote = "Written by pi-tui: the commands and files this project allows without asking. " +
	"This file is a copy and is never read: edits to it are ignored; change the rules in pi-tui's Settings tab."

// legacyNote is the note of copies written before the marker existed: they
// are pi-tui's too, so they are kept up to date.
const legacyNote = "Written by pi-tui: the commands and files this project allows without asking. " +
	"This file is a copy and is never read: change the rules in pi-tui's Settings tab."

// maxCopy bounds what is read of a file at the copy's name to tell whose
// it is: pi-tui's copies are far smaller.
const maxCopy = 1 << 20

// ours reports whether the copy's name in dir is free or holds pi-tui's
// own copy, which pi-tui may replace or remove. Anything else there — a
// file the repository ships, a link, a folder — is not pi-tui's to touch.
func ours(dir *os.Root) (bool, error) {
	fi, err := dir.Lstat(ExportName)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxCopy {
		return false, nil
	}
	// Checked again on the descriptor: the name may have become a FIFO
	// since the Lstat.
	data, err := fsutil.ReadHeadIn(dir, ExportName, maxCopy+1)
	var odd *fsutil.NotRegularError
	if errors.As(err, &odd) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var e exported
	if json.Unmarshal(data, &e) != nil {
		return false, nil
	}
	return e.WrittenBy == writtenBy || (e.WrittenBy == "" && e.Note == legacyNote), nil
}

// export writes the copy through an os.Root on the project folder and
// one on its .pi/ (a link at .pi cannot send it elsewhere), to a new file
// renamed over the old one. It writes only where no file is or pi-tui's
// own copy is: a file the repository ships (or a link planted there) is
// left alone, and the rules, kept in the store, work all the same. With no
// rules left pi-tui's copy is removed.
func export(root string, rules []Rule) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if len(rules) != 0 {
		if err := r.MkdirAll(".pi", 0o755); err != nil {
			return err
		}
	}
	dir, err := r.OpenRoot(".pi")
	if errors.Is(err, os.ErrNotExist) && len(rules) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	defer dir.Close()
	if mine, err := ours(dir); err != nil || !mine {
		return err
	}
	if len(rules) == 0 {
		if err := dir.Remove(ExportName); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	data, _ := json.MarshalIndent(exported{WrittenBy: writtenBy, Note: exportNote, Rules: rules}, "", "  ")
	return atomicfile.WriteIn(dir, ExportName, append(data, '\n'), 0o644)
}
