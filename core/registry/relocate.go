package registry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/pisession"
)

// RelocateOptions say where session files live.
type RelocateOptions struct {
	// SessionsDir returns the folder of a root's session files, as
	// core/sessions' Manager.Dir does; nil means pi's default,
	// <agentDir>/sessions/--<root>--. When it gives one folder for every
	// root (pi's --session-dir, $PI_CODING_AGENT_SESSION_DIR or the
	// sessionDir setting), nothing is moved: the files there whose header
	// names the old root are given the new one.
	SessionsDir func(root string) string
	// Places, when set, has a folder too broad to be a project (/, home,
	// one holding pi's agent dir or pi-tui's data: see CheckBroad) refused
	// with a *BroadRootError, as adding it would be, unless AllowBroad.
	Places     *paths.Places
	AllowBroad bool
}

// Relocated says what a relocation did.
type Relocated struct {
	Project  Project
	OldRoot  string
	Sessions int // session files that now belong to the new root
	// Problems are session files whose header could not be updated; they
	// were moved, left as they were otherwise, and still open in pi-tui.
	Problems []string
}

// StillThereError refuses to relocate a project whose folder still exists.
type StillThereError struct{ Project Project }

func (e *StillThereError) Error() string {
	return fmt.Sprintf("%s still exists at %s; relocate is for a project whose folder moved (add the other folder as a project of its own)", e.Project.Name, e.Project.Root)
}

// Relocate moves project id, whose folder is missing, to the folder at
// newPath: its session folder moves to the new root's with one rename
// (in a session folder shared by every project, the headers' cwd is
// rewritten instead, since it tells the projects apart), its memory is
// re-keyed to the new canonical root in one transaction with the root
// itself (pin, group, flags and the session index stay with the row), and
// its trust.json decision moves to the new folder. The old root's keys
// are gone afterwards.
//
// The session files move first and the store changes last, so a
// relocation cut short is finished by running it again.
func (r *Registry) Relocate(ctx context.Context, id, newPath string, opts RelocateOptions) (Relocated, error) {
	p, err := r.Get(ctx, id)
	if err != nil {
		return Relocated{}, err
	}
	newRoot, err := Canonical(newPath)
	if err != nil {
		return Relocated{}, fmt.Errorf("relocate %s: %w", p.Name, err)
	}
	if !p.Missing {
		return Relocated{}, &StillThereError{Project: p}
	}
	if opts.Places != nil && !opts.AllowBroad {
		if err := r.CheckBroad(ctx, newRoot, *opts.Places); err != nil {
			return Relocated{}, err
		}
	}
	// The other folders of the project stay where they are: the new root
	// may not nest with them (ADR 0085).
	if err := notNested(newRoot, p.Folders[1:]); err != nil {
		return Relocated{}, fmt.Errorf("relocate %s: %w", p.Name, err)
	}
	if other, found, err := r.findPath(ctx, newRoot); err != nil {
		return Relocated{}, err
	} else if found && other.Root == newRoot {
		return Relocated{}, fmt.Errorf("relocate %s: %s is already project %s (%s); remove that one first if this one should take its place", p.Name, newRoot, other.ID, other.Name)
	} else if found {
		return Relocated{}, fmt.Errorf("relocate %s: %s is already a folder of project %s (%s); remove it from there first if this one should take its place", p.Name, newRoot, other.ID, other.Name)
	}
	res := Relocated{OldRoot: p.Root}
	dir := opts.SessionsDir
	if dir == nil {
		dir = func(root string) string { return pisession.SessionsDir(r.agentDir, root) }
	}
	var files []string
	oldDir, newDir := dir(p.Root), dir(newRoot)
	shared := oldDir == newDir
	if shared {
		files, err = sessionFiles(oldDir)
	} else {
		files, err = moveSessionDir(oldDir, newDir)
	}
	if err != nil {
		return Relocated{}, fmt.Errorf("relocate %s: %w; the project still points at %s", p.Name, err, p.Root)
	}
	if shared {
		// The header's cwd is what tells one project's files from another's.
		res.Sessions, res.Problems = rewriteCwds(ctx, files, p.Root, newRoot)
	} else {
		// The folder is what pi (its picker, -c) and pi-tui go by; the
		// files move unchanged (ADR 0020).
		res.Sessions = len(files)
	}
	if _, err := r.st.RelocateProject(ctx, id, newRoot); err != nil {
		return res, fmt.Errorf("relocate %s: %w", p.Name, err)
	}
	r.migrate(ctx) // the old flags go first, so the moved decision is not overwritten
	err = r.trust.Update(ctx, func(d Decisions) error {
		if v, ok := d[jsString(p.Root)]; ok {
			delete(d, jsString(p.Root))
			d[jsString(newRoot)] = v
		}
		return nil
	})
	if err != nil {
		err = fmt.Errorf("%s was relocated to %s, but moving its trust decision failed: %w", p.Name, newRoot, err)
	}
	r.changed(id)
	r.recordFingerprint(ctx, id, newRoot, refreshFull)
	res.Project, _ = r.Get(ctx, id)
	return res, err
}

// moveSessionDir moves a project's session folder to the new root's and
// returns the session files now there. When the new root has a folder
// already (pi ran there), the files move into it one by one; a name taken
// there is an error before anything moves.
func moveSessionDir(oldDir, newDir string) ([]string, error) {
	ents, err := os.ReadDir(oldDir)
	if errors.Is(err, fs.ErrNotExist) {
		return sessionFiles(newDir) // no sessions, or moved by a run cut short
	}
	if err != nil {
		return nil, err
	}
	if err := os.Rename(oldDir, newDir); err == nil {
		return jsonlIn(newDir, ents), nil
	} else if _, serr := os.Stat(newDir); serr != nil {
		return nil, fmt.Errorf("move the sessions folder: %w", err)
	}
	for _, e := range ents {
		if _, err := os.Lstat(filepath.Join(newDir, e.Name())); err == nil {
			return nil, fmt.Errorf("both %s and %s hold a %s; move one aside first", oldDir, newDir, e.Name())
		}
	}
	for _, e := range ents {
		if err := os.Rename(filepath.Join(oldDir, e.Name()), filepath.Join(newDir, e.Name())); err != nil {
			return nil, fmt.Errorf("move %s: %w", e.Name(), err)
		}
	}
	_ = os.Remove(oldDir) // only when empty: something of pi's own stays put
	return sessionFiles(newDir)
}

func sessionFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return jsonlIn(dir, ents), err
}

func jsonlIn(dir string, ents []fs.DirEntry) []string {
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// rewriteCwds gives each session file whose header cwd is oldRoot the new
// root in a folder shared by every project. It counts the files that
// belong to the new root; the files of other projects are not touched.
//
// Each file is rewritten beside itself and renamed over the old one, so a
// reader sees one or the other, never a mix. The new files' data reaches
// the disk before any rename: with one sync of the file system where the
// platform has it (syncfs), else file by file. A sync per file would cost
// a disk flush per session; one costs one.
func rewriteCwds(ctx context.Context, files []string, oldRoot, newRoot string) (n int, problems []string) {
	type job struct {
		path    string
		ours    bool
		pending *pendingRewrite
		err     error
	}
	jobs := make([]job, len(files))
	for i, f := range files {
		jobs[i].path = f
		if ctx.Err() == nil {
			// One at a time: creating files in one folder from several
			// goroutines only contends for the folder's lock.
			jobs[i].ours, jobs[i].pending, jobs[i].err = prepareRewrite(f, oldRoot, newRoot)
		}
	}
	var temps []*os.File
	for _, j := range jobs {
		if j.pending != nil {
			temps = append(temps, j.pending.tmp)
		}
	}
	syncErr := syncFiles(temps)
	for _, j := range jobs {
		err := j.err
		if j.pending != nil {
			if syncErr != nil {
				err = syncErr
				j.pending.abandon()
			} else {
				err = j.pending.commit()
			}
		}
		if j.ours {
			n++
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", filepath.Base(j.path), err))
		}
	}
	if len(temps) > 0 {
		syncDir(filepath.Dir(files[0]))
	}
	return n, problems
}

// pendingRewrite is a session file's new version, written beside it and
// not yet renamed over it.
type pendingRewrite struct {
	path string
	size int64 // of the old file when it was read
	tmp  *os.File
}

// commit renames the new version over the old file, unless the old file
// grew meanwhile (a pi still running in the vanished folder appended a
// line, which the rename would lose): that file is left as it was.
func (p *pendingRewrite) commit() error {
	if err := p.tmp.Close(); err != nil {
		p.abandon()
		return err
	}
	if now, err := os.Stat(p.path); err != nil || now.Size() != p.size {
		p.abandon()
		return errors.New("the file changed while its header was updated; it was left as it was")
	}
	if err := os.Rename(p.tmp.Name(), p.path); err != nil {
		p.abandon()
		return err
	}
	return nil
}

func (p *pendingRewrite) abandon() {
	p.tmp.Close()
	os.Remove(p.tmp.Name())
}

// maxHeader bounds the header line read (pi's headers are a few hundred
// bytes).
const maxHeader = 64 << 10

// prepareRewrite writes, beside the session file at path, a copy whose
// header cwd is newRoot where it was oldRoot, keeping every other byte:
// the header's other fields, their order and spacing, and every entry
// after it. ours reports whether the header named oldRoot (or newRoot
// already, after a relocation cut short); pending is nil when nothing
// needs to change.
func prepareRewrite(path, oldRoot, newRoot string) (ours bool, pending *pendingRewrite, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, nil, err
	}
	line, err := bufio.NewReaderSize(f, 4096).ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		if errors.Is(err, bufio.ErrBufferFull) {
			line, err = readLine(path)
		}
		if err != nil {
			return false, nil, err
		}
	}
	start, end, cwd, ok := headerCwd(line)
	switch {
	case !ok:
		return false, nil, nil // not a header pi would read: left alone
	case cwd == jsString(newRoot):
		return true, nil, nil
	case cwd != jsString(oldRoot):
		return false, nil, nil
	}
	var b bytes.Buffer
	b.Grow(len(line) + len(newRoot))
	b.Write(line[:start])
	writeJSString(&b, newRoot)
	b.Write(line[end:])
	// The temp file is named after the session file (unique in its
	// folder), with a dot so no listing takes it for a session.
	perm := fi.Mode().Perm()
	tmp, err := os.OpenFile(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".relocating"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return true, nil, err
	}
	p := &pendingRewrite{path: path, size: fi.Size(), tmp: tmp}
	if _, err = tmp.Write(b.Bytes()); err == nil {
		if _, err = f.Seek(int64(len(line)), io.SeekStart); err == nil {
			if _, err = io.Copy(tmp, f); err == nil && perm&0o077 != 0 {
				err = tmp.Chmod(perm) // past the umask
			}
		}
	}
	if err != nil {
		p.abandon()
		return true, nil, err
	}
	return true, p, nil
}

// readLine reads a long first line, up to maxHeader bytes.
func readLine(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, maxHeader).ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("its first line is over %d bytes, so not a session header", maxHeader)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return line, nil
}

// headerCwd finds the cwd of a session header line: the byte span of its
// JSON string value and its text. ok is false unless the line is a JSON
// object with "type":"session" and a string cwd.
func headerCwd(line []byte) (start, end int, cwd string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, "", false
	}
	isSession, found := false, false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return 0, 0, "", false
		}
		k, _ := t.(string)
		afterKey := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, 0, "", false
		}
		switch k {
		case "type":
			isSession = string(v) == `"session"`
		case "cwd":
			if json.Unmarshal(v, &cwd) != nil {
				return 0, 0, "", false
			}
			// The value follows the key, a colon and white space.
			rest := line[afterKey:]
			i := bytes.IndexByte(rest, ':') + 1
			for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t' || rest[i] == '\r' || rest[i] == '\n') {
				i++
			}
			start = afterKey + i
			end = int(dec.InputOffset())
			found = bytes.Equal(line[start:end], v)
		}
	}
	return start, end, cwd, isSession && found
}

// syncDir makes the renames in dir durable; a file system that cannot
// sync a directory has nothing to make durable that way.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
