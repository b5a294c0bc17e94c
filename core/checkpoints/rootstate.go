package checkpoints

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/internal/lineread"
)

// rootState is a project's stat cache: what pi-tui last saw of each of
// its files. Calls on one root are serialised by mu, so a walk and a
// write's capture never interleave.
type rootState struct {
	mu     sync.Mutex
	root   string
	file   string // roots/<key>/state
	loaded bool
	files  map[string]fileState
	walked bool // files holds a whole walk, not only the files write and edit named
	dirty  bool
	saved  time.Time
	kept   int64 // content bytes the kept states hold (the first-seen copy's size)
}

// stateHeader starts a state file.
const stateHeader = "pi-tui checkpoint state 1"

// saveEvery bounds how stale a stat cache on disk gets while a process
// runs: a crash then costs the next process a reread of what changed in
// that time, nothing else.
const saveEvery = 30 * time.Second

func rootKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:12])
}

// rootFor returns root's state, loaded on first use.
func (s *Store) rootFor(root string) *rootState {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.roots[root]
	if rs == nil {
		rs = &rootState{root: root, file: filepath.Join(s.dir, "roots", rootKey(root), "state"), files: map[string]fileState{}}
		s.roots[root] = rs
	}
	return rs
}

// load reads the state file once (rs.mu held), before the first walk.
// A missing or damaged one means every file is read again at the next
// walk: slower, never wrong. A path this process captured already (a
// write or edit, which does not load the file) keeps what it captured:
// it is newer than what the file holds.
func (rs *rootState) load() {
	if rs.loaded {
		return
	}
	rs.loaded = true
	f, err := os.Open(rs.file)
	if err != nil {
		return
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	first := true
	for {
		line, long, err := lineread.Next(br, 64<<10)
		if len(line) > 0 && !long {
			if first {
				if !strings.HasPrefix(string(line), stateHeader+"\t") {
					return
				}
				root, err := strconv.Unquote(strings.TrimPrefix(string(line), stateHeader+"\t"))
				if err != nil || root != rs.root {
					return
				}
				rs.walked = true
			} else if p, st, ok := parseState(string(line)); ok {
				if _, had := rs.files[p]; !had {
					rs.files[p] = st
					if st.kept {
						rs.kept += st.size
					}
				}
			}
			first = false
		}
		if err != nil {
			return
		}
	}
}

func parseState(line string) (string, fileState, bool) {
	f := strings.SplitN(line, " ", 11)
	if len(f) != 11 || len(f[0]) != 1 {
		return "", fileState{}, false
	}
	var st fileState
	var nums [7]int64
	for i := range nums {
		n, err := strconv.ParseInt(f[i+2], 10, 64)
		if err != nil {
			return "", fileState{}, false
		}
		nums[i] = n
	}
	p, err := strconv.Unquote(f[10])
	if err != nil {
		return "", fileState{}, false
	}
	st.kind, st.kept = f[0][0], f[1] == "1"
	st.perm = fs.FileMode(nums[0]).Perm()
	st.size = nums[1]
	st.stat = statKey{size: nums[1], mtime: nums[2], ctime: nums[3], ino: uint64(nums[4]), dev: uint64(nums[5]), mode: fs.FileMode(uint32(nums[6]))}
	st.hash = f[9]
	st.valid = nums[2] >= 0
	return p, st, true
}

// save writes the state file if it changed (rs.mu held). A racy or
// unchecked state is written with mtime -1, so the next process reads
// the file again.
func (rs *rootState) save() error {
	if !rs.dirty || !rs.walked {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(rs.file), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(rs.file), ".state-*")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(tmp, 256<<10)
	fmt.Fprintf(w, "%s\t%s\n", stateHeader, strconv.Quote(rs.root))
	for p, st := range rs.files {
		mtime := st.stat.mtime
		if st.racy || !st.valid {
			mtime = -1
		}
		kept := "0"
		if st.kept {
			kept = "1"
		}
		fmt.Fprintf(w, "%c %s %d %d %d %d %d %d %d %s %s\n", st.kind, kept, st.perm, st.size, mtime, st.stat.ctime,
			st.stat.ino, st.stat.dev, uint32(st.stat.mode), st.hash, strconv.Quote(p))
	}
	err = w.Flush()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), rs.file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	rs.dirty, rs.saved = false, time.Now()
	return nil
}

// saveRoots saves every stat cache that changed.
func (s *Store) saveRoots() error {
	s.mu.Lock()
	roots := make([]*rootState, 0, len(s.roots))
	for _, rs := range s.roots {
		roots = append(roots, rs)
	}
	s.mu.Unlock()
	var errs []error
	for _, rs := range roots {
		rs.mu.Lock()
		if err := rs.save(); err != nil {
			errs = append(errs, fmt.Errorf("save the checkpoint stat cache of %s: %w", rs.root, err))
		}
		rs.mu.Unlock()
	}
	return errors.Join(errs...)
}
