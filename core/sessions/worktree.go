package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// KindWorktree is the kind of the record that binds a session to a git
// worktree of its project ("pi-tui.worktree" in the file).
const KindWorktree = "worktree"

// Worktree says where a session works when it has a git worktree of its
// own. It rides in the session file as a custom entry, so the binding
// travels with the session and survives the store; the store only indexes
// it for listings.
type Worktree struct {
	Kind string `json:"kind"`
	// Root is the session's root: the worktree folder, or the folder in it
	// that matches the project root when the project is a sub-folder of
	// its repository.
	Root string `json:"root"`
	// Dir is the worktree's top folder (what git worktree add made).
	Dir string `json:"dir"`
	// Branch is the worktree's branch (pi/<short-id>); Base the branch it
	// was made from and merges into.
	Branch string `json:"branch"`
	Base   string `json:"base"`
	// Main is the top folder of the project's own checkout, where merges
	// land.
	Main string `json:"main"`
	// Discarded is set once the worktree and its branch were removed: the
	// session then works in the project root again.
	Discarded bool `json:"discarded,omitempty"`
}

// Active reports whether the record binds the session to a worktree.
func (w Worktree) Active() bool { return w.Root != "" && !w.Discarded }

// Worktree returns the session's latest worktree record, on any branch of
// its tree (branching back never unbinds a session from its folder).
func (s *Session) Worktree() (Worktree, bool) {
	es := s.pi.Entries()
	for i := len(es) - 1; i >= 0; i-- {
		pe := es[i]
		if pe.Type != pisession.TypeCustom {
			continue
		}
		if ct, _ := pe.StringMember("customType"); ct != customPrefix+KindWorktree {
			continue
		}
		c, err := pe.Custom()
		if err != nil {
			continue
		}
		if w, valid := decodeWorktree(c.Data); valid {
			return w, w.Root != "" // an empty root unbinds: a fork, an unbound session
		}
	}
	return Worktree{}, false
}

// decodeWorktree reads one worktree record; valid is false for a record
// that is not one (which is skipped, as if it were not there).
func decodeWorktree(data []byte) (w Worktree, valid bool) {
	if json.Unmarshal(data, &w) != nil || w.Kind != KindWorktree {
		return Worktree{}, false
	}
	if w.Root == "" {
		return Worktree{}, true
	}
	return w, true
}

// latestWorktree is the binding the records of a summary (file order)
// hold, as Session.Worktree reads it.
func latestWorktree(records []json.RawMessage) Worktree {
	for i := len(records) - 1; i >= 0; i-- {
		if w, valid := decodeWorktree(records[i]); valid {
			return w
		}
	}
	return Worktree{}
}

// SetWorktree records the session's worktree and writes the file at once:
// a session with a worktree exists from the start, so it is listed (and
// its worktree can be merged or discarded) even before its first prompt.
func (s *Session) SetWorktree(ctx context.Context, w Worktree) error {
	w.Kind = KindWorktree
	if _, err := s.Append(ctx, TypeCustom, w); err != nil {
		return fmt.Errorf("record the worktree of session %s: %w", s.ID(), err)
	}
	if s.pi.Persisted() {
		return nil
	}
	if err := s.pi.Flush(ctx); err != nil {
		return fmt.Errorf("record the worktree of session %s: %w", s.ID(), err)
	}
	if s.persisted != nil {
		s.persisted(ctx)
	}
	return nil
}

// SetCwd makes the file's header name root as the session's working
// directory, as pi would have written it had it begun there: pi runs a
// session it is given in the folder its header names, so a session in a
// worktree of its own (or back in its project after a discard) must say
// so before pi is launched on it (pisession.Session.SetCwd).
func (s *Session) SetCwd(ctx context.Context, root string) error {
	if err := s.pi.SetCwd(ctx, root); err != nil {
		return fmt.Errorf("point session %s at %s: %w", s.ID(), root, err)
	}
	return nil
}

// Cwd is the working directory the file's header names.
func (s *Session) Cwd() string { return s.pi.Header().Cwd }

// ownerRoot is the root of the project a session file belongs to, given
// its header's cwd and its worktree record: the cwd, unless it is the
// root of the worktree the session works in (SetCwd), whose project is
// the folder of the main checkout the worktree's root mirrors. Project
// roots and git's top folders are both canonical paths, so they compare
// as strings.
func ownerRoot(cwd string, w Worktree) string {
	if !w.Active() || cwd != w.Root || w.Main == "" {
		return cwd
	}
	rel, err := filepath.Rel(w.Dir, w.Root)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return cwd
	}
	return filepath.Join(w.Main, rel)
}

// summaryRoot is ownerRoot for a listed file.
func summaryRoot(s pisession.Summary) string {
	return ownerRoot(s.Cwd, latestWorktree(s.Custom[customPrefix+KindWorktree]))
}
