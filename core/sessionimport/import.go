package sessionimport

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// Import finds the sessions of opts.Sources where loc says their agents keep
// them and writes each one whose folder a project holds as a pi session
// file in that project's session folder (or, with DryRun, says what it
// would write). A session imported before gets only what its source gained
// since, appended; one whose source has not changed is not read again. A
// line, file or database that cannot be read is reported in Result.Problems
// and the rest goes on; the error is for what stops the whole import (the
// context ending).
func Import(ctx context.Context, loc Locations, opts Options) (Result, error) {
	if len(opts.Sources) == 0 {
		opts.Sources = Sources
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	im := &importer{opts: opts, res: Result{Sessions: []Session{}, Unmatched: []Unmatched{}, Problems: []Problem{}}, unmatched: map[string]int{}, written: map[string]bool{}}
	im.indexTargets()
	var all []found
	for _, src := range opts.Sources {
		all = append(all, im.discover(ctx, src, loc)...)
	}
	defer im.closeDBs()
	defer syncAll(im.written)
	im.res.Found = len(all)
	// A few sessions at a time (one per core, at most four): each is read,
	// converted and written on its own, so memory stays a few times the
	// largest session.
	workers := min(runtime.GOMAXPROCS(0), 4)
	jobs := make(chan found)
	var wg sync.WaitGroup
	done := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for fd := range jobs {
				im.one(ctx, fd)
				im.mu.Lock()
				done++
				if opts.Progress != nil {
					opts.Progress(done, len(all))
				}
				im.mu.Unlock()
			}
		}()
	}
	for _, fd := range all {
		if ctx.Err() != nil {
			break
		}
		jobs <- fd
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return im.res, err
	}
	order := map[Source]int{}
	for i, src := range Sources {
		order[src] = i
	}
	sort.Slice(im.res.Sessions, func(i, j int) bool {
		a, b := im.res.Sessions[i], im.res.Sessions[j]
		if a.Source != b.Source {
			return order[a.Source] < order[b.Source]
		}
		return a.From+a.SourceID < b.From+b.SourceID
	})
	sort.SliceStable(im.res.Problems, func(i, j int) bool {
		a, b := im.res.Problems[i], im.res.Problems[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	for cwd, n := range im.unmatched {
		im.res.Unmatched = append(im.res.Unmatched, Unmatched{Cwd: cwd, Sessions: n})
	}
	sort.Slice(im.res.Unmatched, func(i, j int) bool { return im.res.Unmatched[i].Cwd < im.res.Unmatched[j].Cwd })
	return im.res, ctx.Err()
}

type importer struct {
	mu        sync.Mutex // guards res, unmatched and written while workers run
	opts      Options
	res       Result
	targets   map[string]target // session key → the file imported before
	unmatched map[string]int
	dbs       []*sql.DB
	written   map[string]bool // folders written to, synced at the end
}

type target struct {
	path    string
	project Project
}

// indexTargets reads the names in every project's session folder: a file
// an import wrote carries the key of its source in its name.
func (im *importer) indexTargets() {
	im.targets = map[string]target{}
	for _, p := range im.opts.Projects {
		ents, err := os.ReadDir(p.Dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if k := keyOf(e.Name()); k != "" {
				im.targets[k] = target{path: filepath.Join(p.Dir, e.Name()), project: p}
			}
		}
	}
}

func (im *importer) problem(file string, line int, msg string) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.res.Problems = append(im.res.Problems, Problem{File: file, Line: line, Msg: msg})
}

func (im *importer) closeDBs() {
	for _, db := range im.dbs {
		db.Close()
	}
}

// discover lists a source's sessions; a source that is not there is no
// problem (the agent is not installed).
func (im *importer) discover(ctx context.Context, src Source, loc Locations) []found {
	var out []found
	var err error
	where := ""
	switch src {
	case Claude:
		where = filepath.Join(loc.Claude, "projects")
		out, err = claudeFiles(loc.Claude)
	case Codex:
		where = filepath.Join(loc.Codex, "sessions")
		out, err = codexFiles(loc.Codex)
	case OpenCode:
		return im.discoverOpenCode(ctx, loc.OpenCode)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		im.problem(where, 0, err.Error())
	}
	return out
}

func (im *importer) discoverOpenCode(ctx context.Context, root string) []found {
	var out []found
	inDB := map[string]bool{}
	dbPath := filepath.Join(root, "opencode.db")
	if _, err := os.Stat(dbPath); err == nil {
		db, err := openOpenCodeDB(ctx, dbPath)
		if err != nil {
			im.problem(dbPath, 0, err.Error())
		} else {
			im.dbs = append(im.dbs, db)
			list, err := openCodeDBSessions(ctx, db, dbPath)
			if err != nil {
				im.problem(dbPath, 0, err.Error())
			}
			for _, f := range list {
				inDB[f.id] = true
			}
			out = append(out, list...)
		}
	}
	list, err := openCodeStorageSessions(filepath.Join(root, "storage"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		im.problem(filepath.Join(root, "storage"), 0, err.Error())
	}
	for _, f := range list {
		if !inDB[f.id] { // opencode moved it into the database
			out = append(out, f)
		}
	}
	return out
}

// read converts a source session from where rec left off.
func (im *importer) read(ctx context.Context, fd found, rec record, c *converted) (record, error) {
	lineProblem := func(line int, msg string) { im.problem(fd.path, line, msg) }
	switch fd.src {
	case Claude:
		return readClaude(ctx, fd, rec, c, im.opts.MaxLineBytes, lineProblem)
	case Codex:
		return readCodex(ctx, fd, rec, c, im.opts.MaxLineBytes, lineProblem)
	default:
		return readOpenCode(ctx, fd, rec, c, im.problem)
	}
}

// one imports one source session.
func (im *importer) one(ctx context.Context, fd found) {
	key := sessionKey(fd.src, fd.id)
	if t, ok := im.targets[key]; ok {
		im.again(ctx, fd, key, t)
		return
	}
	c := newConverted(key)
	rec := record{Source: fd.src, SourceID: fd.id, From: fd.path, Stamp: fd.stamp}
	rec, err := im.read(ctx, fd, rec, c)
	if err != nil {
		im.problem(fd.path, 0, err.Error())
		return
	}
	if c.cwd == "" {
		im.problem(fd.path, 0, "the session records no working folder; skipped")
		return
	}
	if len(c.entries) == 0 {
		return // nothing said: an empty or sub-agent-only session
	}
	p, ok := im.project(c.cwd)
	if !ok {
		im.mu.Lock()
		im.unmatched[filepath.Clean(c.cwd)]++
		im.mu.Unlock()
		return
	}
	if im.opts.Only != "" && p.ID != im.opts.Only {
		return
	}
	if c.created.IsZero() {
		c.created = im.opts.Now()
	}
	id := sessionID(key, c.created)
	n := len(c.entries)
	c.addRecord(rec)
	s := Session{Source: fd.src, SourceID: fd.id, From: fd.path, ProjectID: p.ID, Project: p.Name, ID: id, Title: rec.Title, Entries: n,
		File: filepath.Join(p.Dir, pisession.FileName(pisession.FormatTimestamp(c.created), id))}
	if !im.opts.DryRun {
		file, err := pisession.WriteSession(ctx, p.Dir, pisession.SessionDraft{ID: id, Created: c.created, Cwd: p.Root, Entries: c.entries},
			pisession.Options{Now: im.opts.Now, Unsynced: batchSync})
		im.mu.Lock()
		im.written[p.Dir] = true
		im.mu.Unlock()
		if err != nil {
			im.problem(fd.path, 0, err.Error())
			return
		}
		s.File = file
	}
	im.mu.Lock()
	im.res.Sessions = append(im.res.Sessions, s)
	im.mu.Unlock()
}

// again brings a session imported before up to date with its source.
func (im *importer) again(ctx context.Context, fd found, key string, t target) {
	if im.opts.Only != "" && t.project.ID != im.opts.Only {
		return
	}
	rec, ok, err := lastRecord(t.path)
	if err != nil || !ok {
		// Not this import's file after all, or unreadable: leave it.
		if err != nil {
			im.problem(t.path, 0, err.Error())
		}
		return
	}
	if rec.Stamp == fd.stamp {
		im.unchanged()
		return
	}
	c := newConverted(key)
	c.continueFrom(rec.Tip, map[string]bool{}, rec.Seq)
	rec.Stamp, rec.From = fd.stamp, fd.path
	rec, err = im.read(ctx, fd, rec, c)
	if err != nil {
		im.problem(fd.path, 0, err.Error())
		return
	}
	if len(c.entries) == 0 {
		im.unchanged()
		return
	}
	n := len(c.entries)
	c.addRecord(rec)
	s := Session{Source: fd.src, SourceID: fd.id, From: fd.path, ProjectID: t.project.ID, Project: t.project.Name, File: t.path,
		ID: idOfFile(t.path), Title: rec.Title, Entries: n, Appended: true}
	if !im.opts.DryRun {
		ps, err := pisession.Open(ctx, t.path, pisession.Options{Now: im.opts.Now})
		if err != nil {
			im.problem(t.path, 0, err.Error())
			return
		}
		_, err = ps.AppendDrafts(ctx, c.entries)
		ps.Close()
		if err != nil {
			im.problem(t.path, 0, err.Error())
			return
		}
	}
	im.mu.Lock()
	im.res.Sessions = append(im.res.Sessions, s)
	im.mu.Unlock()
}

func (im *importer) unchanged() {
	im.mu.Lock()
	im.res.Unchanged++
	im.mu.Unlock()
}

// project is the registered project whose root holds cwd (the deepest, when
// projects nest).
func (im *importer) project(cwd string) (Project, bool) {
	cwd = filepath.Clean(cwd)
	best := -1
	for i, p := range im.opts.Projects {
		root := filepath.Clean(p.Root)
		if cwd == root || strings.HasPrefix(cwd, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)) {
			if best < 0 || len(root) > len(im.opts.Projects[best].Root) {
				best = i
			}
		}
	}
	if best < 0 {
		return Project{}, false
	}
	return im.opts.Projects[best], true
}

func idOfFile(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if i := strings.LastIndexByte(name, '_'); i >= 0 {
		return name[i+1:]
	}
	return name
}
