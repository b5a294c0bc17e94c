package checkpoints

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// maxHashBytes is the largest file hashed whole; a larger one is known
// by its size and mtime (reading gigabytes at every change is not worth
// what the hash adds: such a file's content is not kept anyway).
const maxHashBytes = 64 << 20

// budget is the content a capture may still add to the store: a
// session's, or a project's first-seen copy.
type budget struct {
	left int64
	full bool // some content was not kept for want of room
}

func (b *budget) take(n int64) bool {
	if b == nil {
		return true
	}
	if n > b.left {
		b.full = true
		return false
	}
	b.left -= n
	return true
}

// capturer reads paths of one root into fileStates, keeping contents.
type capturer struct {
	s     *Store
	r     *os.Root
	start time.Time // of the walk or the call: what is younger is racy
	bud   *budget

	mu    sync.Mutex // a walk captures from several goroutines
	added int64      // content bytes added to the store
	err   error      // the first failure to keep a content
}

// capture is the state of rel, whose lstat is fi (nil: do the lstat).
// prev, when ok, is what the stat cache holds: an unchanged stat key
// means the file is taken as it was, without reading it.
func (c *capturer) capture(rel string, fi fs.FileInfo, prev fileState, ok bool) fileState {
	if fi == nil {
		var err error
		fi, err = c.r.Lstat(rel)
		if err != nil {
			return fileState{kind: kindNone}
		}
	}
	key := keyOf(fi)
	if ok && prev.valid && !prev.racy && prev.stat == key && prev.kind != kindNone {
		return prev
	}
	st := fileState{stat: key, size: fi.Size(), perm: fi.Mode().Perm(), valid: true}
	st.racy = fi.ModTime().After(c.start.Add(-racyWindow))
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		st.kind = kindLink
		target, err := c.r.Readlink(rel)
		if err != nil {
			st.hash = fmt.Sprintf("stat:%d:%d", key.size, key.mtime)
			return st
		}
		st.hash = hashOf([]byte(target))
		st.size = int64(len(target))
		st.kept = c.keep(st.hash, []byte(target))
	case m.IsRegular():
		st.kind = kindFile
		c.readFile(rel, &st)
	case m.IsDir():
		st.kind = kindDir
	default:
		st.kind = kindOdd
		st.hash = "odd:" + strings.ReplaceAll(fsutil.Kind(m), " ", "-") // one field of the state file
	}
	return st
}

// readFile hashes a regular file and keeps its content when it is within
// the bounds. It never blocks on a FIFO swapped in, and never leaves the
// root.
func (c *capturer) readFile(rel string, st *fileState) {
	statHash := fmt.Sprintf("stat:%d:%d", st.stat.size, st.stat.mtime)
	f, err := c.r.OpenFile(rel, os.O_RDONLY|fsutil.ONonblock, 0)
	if err != nil {
		st.hash = statHash
		return
	}
	f, _, err = fsutil.CheckRegular(f)
	if err != nil {
		st.hash = statHash
		return
	}
	defer f.Close()
	max := c.s.lim.MaxFileBytes
	if st.size > max {
		if st.size > maxHashBytes {
			st.hash = statHash
			return
		}
		h := sha256.New()
		if _, err := io.Copy(h, io.LimitReader(f, maxHashBytes)); err != nil {
			st.hash = statHash
			return
		}
		st.hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
		return
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		st.hash = statHash
		return
	}
	st.size = int64(len(b))
	st.hash = hashOf(b)
	if int64(len(b)) <= max {
		st.kept = c.keep(st.hash, b)
	}
}

// keep puts content in the store if the budget allows.
func (c *capturer) keep(hash string, content []byte) bool {
	if p := c.s.objectPath(hash); p != "" {
		if _, err := os.Stat(p); err == nil {
			// Kept already: costs nothing. Its time is brought up, so a
			// Clean in another process, which cannot see this process's
			// stat cache, counts it as just written.
			now := time.Now()
			os.Chtimes(p, now, now)
			return true
		}
	}
	c.mu.Lock()
	room := c.bud.take(int64(len(content)))
	c.mu.Unlock()
	if !room {
		return false
	}
	n, err := c.s.putObject(hash, content)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		return false
	}
	c.added += n
	return true
}
