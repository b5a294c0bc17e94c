package review

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// maxAncestors bounds the walk up a fork's parents: a chain of planted
// headers naming each other costs at most this many header reads.
const maxAncestors = 16

// maxHeaderBytes is how much of a file is read looking for its header
// (pi skips blank and malformed lines before it).
const maxHeaderBytes = 1 << 20

// view is what one reading of a session file gives the service.
type view struct {
	info      checkpoints.SessionInfo
	projectID string
	at        map[string]int // entry id → its position in info.Order
	// users are the user messages on the current branch, root first.
	users []string
}

func (v view) has(entry string) bool {
	_, ok := v.at[entry]
	return ok
}

// read opens session id (an id, or a unique prefix of one), takes what
// the store needs of it and closes it again.
//
// Order is the entries pi-tui reads in the file, in file order: every
// message, compaction, model or thinking change and pi-tui record, on
// every branch. What it leaves out (names, labels, pi-tui's own markers,
// an extension's state) makes no tool call and is never a turn to rewind
// to, and taking the order from the open session costs no second read of
// the file.
func (s *Service) read(ctx context.Context, id string) (view, error) {
	sess, err := s.sessions.Open(ctx, id)
	if err != nil {
		return view{}, err
	}
	file := sess.File()
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		// Never written (no prompt sent yet), so nothing was recorded.
		// The manager hands out its one unwritten session to every
		// caller (the runtime holds it too), so it is not closed here.
		return view{info: checkpoints.SessionInfo{ID: sess.ID()}, at: map[string]int{}}, nil
	}
	defer sess.Close()
	entries := sess.Entries()
	v := view{info: checkpoints.SessionInfo{ID: sess.ID(), Order: make([]string, len(entries))}, projectID: sess.ProjectID(), at: make(map[string]int, len(entries))}
	for i, e := range entries {
		v.info.Order[i] = e.ID
		v.at[e.ID] = i
	}
	for _, e := range sess.Path() {
		if e.Type == sessions.TypeUser {
			v.users = append(v.users, e.ID)
		}
	}
	v.info.Ancestors = ancestors(ctx, file, sess.ID())
	return v, nil
}

// ancestors follows the parentSession of file's header up, nearest first,
// and returns the ids of those sessions. It stops at a file that is gone
// or is not a session (its parent's evidence is then not shown), at a
// loop, and after maxAncestors.
func ancestors(ctx context.Context, file, id string) []string {
	var out []string
	seen := map[string]bool{id: true}
	for len(out) < maxAncestors && ctx.Err() == nil {
		h, err := readHeader(file)
		if err != nil || h.ParentSession == "" {
			break
		}
		parent := h.ParentSession
		if !filepath.IsAbs(parent) {
			parent = filepath.Join(filepath.Dir(file), parent)
		}
		ph, err := readHeader(parent)
		if err != nil || seen[ph.ID] {
			break
		}
		seen[ph.ID] = true
		out = append(out, ph.ID)
		file = parent
	}
	return out
}

// header is what review needs of a session file's first line.
type header struct {
	Type          string `json:"type"`
	ID            string `json:"id"`
	ParentSession string `json:"parentSession"`
}

// readHeader reads a session file's header: its first JSON line, blank
// and malformed lines skipped, as pi reads it.
func readHeader(path string) (header, error) {
	f, err := os.Open(path)
	if err != nil {
		return header{}, err
	}
	defer f.Close()
	r := bufio.NewReader(io.LimitReader(f, maxHeaderBytes))
	for {
		line, err := r.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var h header
			if json.Unmarshal(t, &h) == nil {
				if h.Type != "session" || h.ID == "" {
					return header{}, fmt.Errorf("%s is not a session file", path)
				}
				return h, nil
			}
		}
		if err != nil {
			return header{}, fmt.Errorf("%s has no session header", path)
		}
	}
}
