package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/internal/atomicfile"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// TrustFile is pi's record of project trust inside the agent dir. pi-tui
// keeps no trust of its own: a folder trusted in pi is trusted here and
// back.
const TrustFile = "trust.json"

// lockSuffix names pi's lock beside trust.json. pi takes it with
// proper-lockfile, which creates it as a directory (mkdir is atomic on
// every file system pi runs on) and removes it when done.
const lockSuffix = ".lock"

// Lock timings. proper-lockfile treats a lock whose mtime is older than 10
// s as left behind by a process that died (a live holder refreshes it
// every 5 s; pi holds it for one read or write). pi-tui holds the lock
// for the same short work, so it never needs refreshing.
const (
	defaultLockStale = 10 * time.Second
	// defaultLockWait is how long a writer waits for a held lock: longer
	// than the stale age, so a dead holder's lock is always cleared first.
	defaultLockWait = 15 * time.Second
	maxTrustSize    = 4 << 20
)

// Decision is one value of trust.json: true, false, or null (pi keeps a
// null it reads; it means no decision).
type Decision int8

// Decisions values.
const (
	Undecided Decision = iota // null
	Trusted
	Untrusted
)

// Decisions are the entries of trust.json by canonical folder.
type Decisions map[string]Decision

// Nearest returns the decision that applies to dir: the one on dir
// itself or, failing that, on its nearest parent that has one, so a
// child's false beats a parent's true. at is the folder the decision was
// made for.
func (d Decisions) Nearest(dir string) (trusted bool, at string, ok bool) {
	dir = jsString(dir)
	for {
		switch d[dir] {
		case Trusted:
			return true, dir, true
		case Untrusted:
			return false, dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false, "", false
		}
		dir = parent
	}
}

// Trust reads and writes trust.json as pi does, under pi's lock.
type Trust struct {
	path string
	// stale and wait tune the lock (tests shorten them); now is the clock
	// the lock's age is judged by.
	stale, wait time.Duration
	now         func() time.Time
	// held, when set, is called each time the lock is found held by
	// someone else (tests wait on it instead of sleeping).
	held func()
}

// NewTrust returns the trust record of the agent dir.
func NewTrust(agentDir string) *Trust {
	return &Trust{path: filepath.Join(agentDir, TrustFile), stale: defaultLockStale, wait: defaultLockWait, now: time.Now}
}

// Path is trust.json's path.
func (t *Trust) Path() string { return t.path }

// Read returns the decisions. A missing file has none. A file that cannot
// be used (broken JSON, a value other than true, false or null, not a
// regular file) is an error naming the file and the position, with no
// decisions: trust falls back to the default, and the file is left for
// the user to fix.
//
// pi rewrites trust.json in place, so a read can meet a half-written
// file; a read that fails is repeated under pi's lock, where no writer
// is midway, before it counts as broken.
func (t *Trust) Read(ctx context.Context) (Decisions, error) {
	d, err := t.read()
	if err == nil {
		return d, nil
	}
	var fe *pisettings.FileError
	if !errors.As(err, &fe) {
		return Decisions{}, err
	}
	release, lerr := t.lock(ctx)
	if lerr != nil {
		return Decisions{}, err
	}
	defer release()
	d, err = t.read()
	if err != nil {
		return Decisions{}, err
	}
	return d, nil
}

func (t *Trust) read() (Decisions, error) {
	data, _, err := fsutil.ReadRegular(t.path, maxTrustSize)
	if errors.Is(err, fs.ErrNotExist) {
		return Decisions{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read: %w", t.path, fsutil.PlainError(err))
	}
	return parseTrust(t.path, data)
}

// parseTrust reads a flat object of true, false and null; anything else
// is a *settings.FileError at the offending value. An empty file holds
// nothing to lose and counts as {}.
func parseTrust(path string, data []byte) (Decisions, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	d := Decisions{}
	if len(bytes.TrimSpace(data)) == 0 {
		return d, nil
	}
	if err := json.Unmarshal(data, new(any)); err != nil {
		return nil, pisettings.JSONError(path, data, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	at := func(off int64, problem string) error {
		off += int64(len(data[off:]) - len(bytes.TrimLeft(data[off:], " \t\r\n:,")))
		line, col := pisettings.Position(data, int(off))
		return &pisettings.FileError{Path: path, Line: line, Column: col, Problem: problem}
	}
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return nil, at(0, "the top level must be an object of folders and true, false or null")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, pisettings.JSONError(path, data, err)
		}
		key, _ := tok.(string)
		off := dec.InputOffset()
		val, err := dec.Token()
		if err != nil {
			return nil, pisettings.JSONError(path, data, err)
		}
		switch v := val.(type) {
		case bool:
			d[key] = Untrusted
			if v {
				d[key] = Trusted
			}
		case nil:
			d[key] = Undecided
		default:
			return nil, at(off, fmt.Sprintf("the value of %q must be true, false or null", key))
		}
	}
	return d, nil
}

// Update changes decisions under pi's lock: it reads the file afresh,
// lets change edit the decisions, and writes them back (atomically, keys
// sorted as pi sorts them). Every key change does not touch is kept. A
// broken file is never overwritten: the error says to fix it first.
func (t *Trust) Update(ctx context.Context, change func(Decisions) error) error {
	if err := os.MkdirAll(filepath.Dir(t.path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", t.path, fsutil.PlainError(err))
	}
	release, err := t.lock(ctx)
	if err != nil {
		return err
	}
	defer release()
	d, err := t.read()
	if err != nil {
		return fmt.Errorf("%w; it was left as it is: fix it by hand first", err)
	}
	before := formatTrust(d)
	if err := change(d); err != nil {
		return err
	}
	data := formatTrust(d)
	if bytes.Equal(data, before) {
		if _, err := os.Lstat(t.path); err == nil {
			return nil
		}
	}
	mode := fs.FileMode(0o644)
	target := t.path
	if real, err := filepath.EvalSymlinks(t.path); err == nil {
		target = real // a dotfiles link stays a link
	}
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := atomicfile.Write(target, data, mode); err != nil {
		return fmt.Errorf("write %s: %w; it is unchanged", t.path, err)
	}
	return nil
}

// Set records one decision for dir (canonical): true or false.
func (t *Trust) Set(ctx context.Context, dir string, trusted bool) error {
	return t.Update(ctx, func(d Decisions) error {
		d[jsString(dir)] = Untrusted
		if trusted {
			d[jsString(dir)] = Trusted
		}
		return nil
	})
}

// formatTrust writes decisions as pi's JSON.stringify(sorted, null, 2)
// does: keys sorted by UTF-16 code units, two-space indent, a trailing
// newline.
func formatTrust(d Decisions) []byte {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b))) })
	if len(keys) == 0 {
		return []byte("{}\n")
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range keys {
		b.WriteString("  ")
		writeJSString(&b, k)
		switch d[k] {
		case Trusted:
			b.WriteString(": true")
		case Untrusted:
			b.WriteString(": false")
		default:
			b.WriteString(": null")
		}
		if i < len(keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// writeJSString quotes s as JavaScript's JSON.stringify does: only the
// quote, the backslash and control characters are escaped.
func writeJSString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// jsString is a path as node sees it: bytes that are not UTF-8 read as
// U+FFFD, so a key written by pi for such a folder is found again.
func jsString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// lock takes pi's lock: it creates trust.json.lock as a directory. A lock
// that is older than the stale age was left by a process that died and is
// removed; a live one is waited for, up to t.wait.
func (t *Trust) lock(ctx context.Context) (release func(), err error) {
	lockPath := t.path + lockSuffix
	deadline := t.now().Add(t.wait)
	pause := 2 * time.Millisecond
	for {
		err := os.Mkdir(lockPath, 0o777)
		if err == nil {
			return func() { os.Remove(lockPath) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", t.path, fsutil.PlainError(err))
		}
		fi, serr := os.Lstat(lockPath)
		switch {
		case errors.Is(serr, fs.ErrNotExist):
			continue // released meanwhile
		case serr != nil:
			return nil, fmt.Errorf("lock %s: %w", t.path, fsutil.PlainError(serr))
		case !fi.IsDir():
			return nil, fmt.Errorf("%s is in the way of the lock on %s (it should be a directory, or absent); remove it", lockPath, TrustFile)
		case fi.ModTime().Before(t.now().Add(-t.stale)):
			// Left behind: remove it as proper-lockfile does, and try again.
			if rerr := syscall.Rmdir(lockPath); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				return nil, fmt.Errorf("lock %s: a stale lock cannot be removed: %w", t.path, rerr)
			}
			continue
		}
		if t.held != nil {
			t.held()
		}
		if !t.now().Before(deadline) {
			return nil, fmt.Errorf("%s is locked by another program (%s has existed for %s); try again, or remove it if no pi is running",
				t.path, lockPath, t.now().Sub(fi.ModTime()).Round(time.Second))
		}
		timer := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("lock %s: %w", t.path, ctx.Err())
		case <-timer.C:
		}
		pause = min(pause*2, 50*time.Millisecond)
	}
}
