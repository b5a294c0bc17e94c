package checkpoints

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/internal/lineread"
)

// graceAge keeps what is younger out of Clean's reach: another process
// may have just written a content or a journal it has not referred to
// yet, or be about to write the session file a journal names.
const graceAge = time.Hour

// keepRootFor is how long a project's stat cache (its first-seen copy)
// stays without any session's change referring to it: a project opened
// again within it does not have to be read whole again.
const keepRootFor = 7 * 24 * time.Hour

func (s *Store) remove(id string) error {
	s.mu.Lock()
	delete(s.journals, id)
	s.mu.Unlock()
	if err := os.RemoveAll(s.sessionDir(id)); err != nil {
		return errors.New("remove the session's checkpoints: " + err.Error())
	}
	return nil
}

func (s *Store) clean(ctx context.Context) error {
	if _, err := os.Stat(s.dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	unlock, err := lockFile(filepath.Join(s.dir, "clean.lock"))
	if err != nil {
		return err
	}
	if unlock == nil {
		return nil // another process is cleaning
	}
	defer unlock()
	now := time.Now()
	// Every process cleans at start, a CLI command too: once an hour is
	// enough (nothing younger than graceAge is removed anyway), so a run
	// of commands does not read every journal and stat cache each time.
	// The hour is claimed as the clean starts: a command shorter than the
	// clean (a headless prompt on a large project) would otherwise start
	// it again, and pay for it, every time (ADR 0087). One cut short is
	// done again an hour later; what it left is only disk.
	stamp := filepath.Join(s.dir, "clean.stamp")
	if fi, err := os.Stat(stamp); err == nil && now.Sub(fi.ModTime()) < graceAge {
		return nil
	}
	if err := os.WriteFile(stamp, nil, 0o600); err == nil {
		os.Chtimes(stamp, now, now) // an empty file truncated again may keep its time
	}
	refs := map[string]bool{}
	liveRoots := map[string]bool{}

	sessDir := filepath.Join(s.dir, "sessions")
	ents, _ := os.ReadDir(sessDir)
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		jp := filepath.Join(sessDir, e.Name(), journalName)
		recs, err := readJournal(jp)
		if err != nil {
			continue
		}
		fi, serr := os.Stat(jp)
		gone := serr == nil && now.Sub(fi.ModTime()) > graceAge
		if len(recs) > 0 && recs[0].Type == "session" && recs[0].File != "" {
			if _, err := os.Stat(recs[0].File); !errors.Is(err, fs.ErrNotExist) {
				gone = false
			}
		} else {
			gone = false // a journal without a header names no file: left alone
		}
		if gone {
			os.RemoveAll(filepath.Join(sessDir, e.Name()))
			s.mu.Lock()
			for id, j := range s.journals {
				if j.path == jp {
					delete(s.journals, id)
				}
			}
			s.mu.Unlock()
			continue
		}
		for _, r := range recs {
			if r.Type != "change" {
				continue
			}
			liveRoots[r.Root] = true
			for _, v := range []*version{r.Before, r.After} {
				if v != nil && v.Kept {
					refs[v.Hash] = true
				}
			}
		}
	}

	// The stat caches in this process's memory refer to contents too.
	s.mu.Lock()
	mem := make([]*rootState, 0, len(s.roots))
	for _, rs := range s.roots {
		mem = append(mem, rs)
	}
	s.mu.Unlock()
	for _, rs := range mem {
		rs.mu.Lock()
		for _, st := range rs.files {
			if st.kept {
				refs[st.hash] = true
			}
		}
		liveRoots[rs.root] = true
		rs.mu.Unlock()
	}

	rootsDir := filepath.Join(s.dir, "roots")
	rents, _ := os.ReadDir(rootsDir)
	for _, e := range rents {
		if err := ctx.Err(); err != nil {
			return err
		}
		sp := filepath.Join(rootsDir, e.Name(), "state")
		root, hashes := readStateHashes(sp)
		fi, err := os.Stat(sp)
		var stale bool
		switch _, rerr := os.Stat(root); {
		case root == "":
			stale = err != nil || now.Sub(fi.ModTime()) > graceAge // damaged
		case errors.Is(rerr, fs.ErrNotExist):
			stale = true // the project folder is gone
		default:
			stale = err != nil || now.Sub(fi.ModTime()) > keepRootFor
		}
		if stale && !liveRoots[root] {
			os.RemoveAll(filepath.Join(rootsDir, e.Name()))
			continue
		}
		for _, h := range hashes {
			refs[h] = true
		}
	}

	objDir := filepath.Join(s.dir, "objects")
	oents, _ := os.ReadDir(objDir)
	for _, d := range oents {
		if err := ctx.Err(); err != nil {
			return err
		}
		sub := filepath.Join(objDir, d.Name())
		files, _ := os.ReadDir(sub)
		for _, f := range files {
			info, err := f.Info()
			if err != nil || now.Sub(info.ModTime()) <= graceAge {
				continue
			}
			if !refs["sha256:"+d.Name()+f.Name()] {
				os.Remove(filepath.Join(sub, f.Name()))
			}
		}
		os.Remove(sub) // only when empty
	}
	return nil
}

// readStateHashes reads a stat cache's root and kept hashes.
func readStateHashes(path string) (string, []string) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var root string
	var out []string
	first := true
	for {
		line, long, err := lineread.Next(br, 64<<10)
		if len(line) > 0 && !long {
			if first {
				if rest, ok := strings.CutPrefix(string(line), stateHeader+"\t"); ok {
					root, _ = strconv.Unquote(rest)
				}
			} else if p, st, ok := parseState(string(line)); ok && st.kept && p != "" {
				out = append(out, st.hash)
			}
			first = false
		}
		if err != nil {
			return root, out
		}
	}
}

func (s *Store) usage() (int64, error) {
	var n int64
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n, err
}
