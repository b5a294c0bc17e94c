package instructions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/internal/safetext"
)

// Scopes and kinds of a Source, as they appear in `instructions --json`.
const (
	ScopeGlobal  = "global"
	ScopeProject = "project"

	KindInstructions = "instructions"
	KindProvider     = "provider"
)

// candidateNames are tried in order in every project directory; the first
// one that qualifies is the directory's instruction file.
var candidateNames = [...]string{
	"AGENTS.override.md",
	"AGENTS.md",
	"AGENTS.MD",
	"CLAUDE.md",
	"CLAUDE.MD",
	".claude/CLAUDE.md",
}

// globalName is the only instruction file read from the agent directory.
const globalName = "AGENTS.md"

// Model names the model a chain is built for; it selects provider files.
// An empty Provider means no provider files at all.
type Model struct {
	Provider string
	ID       string
}

// Options configures a Resolver.
type Options struct {
	// AgentDir is pi's agent directory (A). It need not be canonical; the
	// resolver canonicalises it and only loads global files whose
	// canonical path stays inside it. Empty disables global sources.
	AgentDir string
	// Home is the user's home directory, used only to write "~" in labels.
	Home string
	// Model selects provider files (see Guidance.FilesFor).
	Model Model
	// BudgetBytes is the content budget of a whole chain; 0 means
	// DefaultBudgetBytes.
	BudgetBytes int
	// Guidance maps models to provider files; nil loads
	// AgentDir/agent-guidance.json once, when the Resolver is built.
	Guidance *Guidance
}

// Resolver resolves instruction chains for one agent directory and model.
// It is safe for use from many goroutines; build a new one when the model
// or the guidance changes. Its only mutable state is two bounded caches:
// candidate names known to be absent from unchanged directories (see
// dirCache) and the last root chain of each root while every probe it was
// built from gives the same result (see rootMemo), so reusing one Resolver
// makes later resolutions cheaper without ever hiding a change.
type Resolver struct {
	agentDir   string // absolute and clean, as configured
	agentCanon string // canonical agent directory when it resolved at New
	agentLabel string // agent directory as shown in labels, e.g. "~/.pi/agent"
	budget     int
	guidance   *Guidance
	files      []string // provider files for the model
	fileBits   []uint64 // each provider file's bit in dirEntry.absent

	dirs  dirCache // absent names per unchanged directory
	roots rootMemo // the last root chain per root, while its probes hold

	// now, when set (by tests in this package), replaces time.Now when
	// deciding whether a directory is old enough to be cached.
	now func() time.Time

	// readHook, when set (by tests in this package), sees the byte count
	// of every read from an instruction file.
	readHook func(n int)
}

// Chain is a resolved instruction chain. It is what `pi-tui instructions
// --json` prints, so the JSON names are a contract.
type Chain struct {
	// Root is the canonical project root.
	Root string `json:"root"`
	// Target is the canonical target path the chain was resolved for (the
	// root for a root chain, the cleaned path as given when it was refused).
	Target string `json:"target"`
	// BudgetBytes is the content budget; UsedBytes the content shown.
	BudgetBytes int `json:"budgetBytes"`
	UsedBytes   int `json:"usedBytes"`
	// Sources are in delivery order: global first, then outer to inner.
	Sources []Source `json:"sources"`
	// Skipped lists existing candidates that did not qualify, with reasons.
	Skipped []Skip `json:"skipped"`
	// Warnings explain chain-level decisions, such as a target outside the
	// root falling back to the root chain or an invalid guidance file.
	Warnings []string `json:"warnings"`
	// Text is the rendered section exactly as a runtime receives it.
	Text string `json:"text"`
	// Folder names the folder of a multi-folder project the chain was
	// resolved in, when it is not the primary root (ResolveInFolder); its
	// sources are labelled "NAME:path" and Root is that folder.
	Folder string `json:"folder,omitempty"`

	// Dir is the canonical directory the chain belongs to (possibly not yet
	// existing). Two targets with the same Dir have the same chain, which
	// makes it the key for the per-prompt claim cache.
	Dir string `json:"-"`
	// Fallback is true when the target was refused and the chain is the
	// root chain.
	Fallback bool `json:"-"`
}

// Source is one instruction or provider file in a chain.
type Source struct {
	Scope string `json:"scope"` // ScopeGlobal or ScopeProject
	Kind  string `json:"kind"`  // KindInstructions or KindProvider
	// Label names the file for the model and the user: "~/.pi/agent/AGENTS.md"
	// for global files, a root-relative slash path for project files.
	Label string `json:"label"`
	// Path is the file's path as found (a link is not resolved here).
	Path string `json:"path"`
	// Bytes is the file's size on disk; ShownBytes the normalised content
	// that made it into the chain. Truncated marks a cut source.
	Bytes      int  `json:"bytes"`
	ShownBytes int  `json:"shownBytes"`
	Truncated  bool `json:"truncated"`

	// Dir is the canonical directory the source belongs to.
	Dir string `json:"-"`
	// Canonical is the file's canonical path (equal to Path unless a link).
	Canonical string `json:"-"`
	// Content is the shown content, normalised and possibly cut.
	Content string `json:"-"`

	id       fileID
	text     string // normalised content read, before the budget cut
	complete bool   // the whole file was read
}

// Skip is an existing candidate that did not qualify.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// RootError reports a project root that cannot be used. Its message is one
// sentence naming the path.
type RootError struct {
	Path string
	Err  error
}

func (e *RootError) Error() string {
	switch {
	case isNotExist(e.Err):
		return fmt.Sprintf("project root %s does not exist", e.Path)
	case errors.Is(e.Err, errNotDir):
		return fmt.Sprintf("project root %s is not a directory", e.Path)
	case isPermission(e.Err):
		return fmt.Sprintf("project root %s cannot be accessed: permission denied", e.Path)
	}
	return fmt.Sprintf("project root %s cannot be resolved: %s", e.Path, shortErr(e.Err))
}

func (e *RootError) Unwrap() error { return e.Err }

var errNotDir = errors.New("not a directory")

// New builds a Resolver. It canonicalises the agent directory once (a
// missing agent directory is retried on every resolution, so creating it
// later works) and loads the guidance when opts.Guidance is nil.
func New(opts Options) *Resolver {
	r := &Resolver{budget: opts.BudgetBytes, guidance: opts.Guidance}
	if r.budget <= 0 {
		r.budget = DefaultBudgetBytes
	}
	if opts.AgentDir != "" {
		if abs, err := filepath.Abs(opts.AgentDir); err == nil {
			r.agentDir = abs
		}
	}
	if r.guidance == nil {
		if r.agentDir != "" {
			r.guidance, _ = LoadGuidance(r.agentDir)
		} else {
			r.guidance = DefaultGuidance()
		}
	}
	r.files = r.guidance.FilesFor(opts.Model)
	r.fileBits = fileBits(r.files)
	if r.agentDir != "" {
		var sys sysCtx
		if c, err := canonical(&sys, r.agentDir); err == nil {
			r.agentCanon = c
		}
		r.agentLabel = homeLabel(r.agentDir, r.agentCanon, opts.Home)
	}
	return r
}

// homeLabel writes the agent directory with "~" when it lies under home,
// preferring the path as configured (what the user typed) over its
// canonical form.
func homeLabel(dir, canon, home string) string {
	if home != "" {
		if h, err := filepath.Abs(home); err == nil {
			if rel, ok := relWithin(h, dir); ok {
				return tildeJoin(rel)
			}
			if hc, err := filepath.EvalSymlinks(h); err == nil && canon != "" {
				if rel, ok := relWithin(hc, canon); ok {
					return tildeJoin(rel)
				}
			}
		}
	}
	return filepath.ToSlash(dir)
}

func tildeJoin(rel string) string {
	if rel == "" {
		return "~"
	}
	return "~/" + filepath.ToSlash(rel)
}

// Budget returns the chain budget in bytes.
func (r *Resolver) Budget() int { return r.budget }

// Guidance returns the provider guidance in effect.
func (r *Resolver) Guidance() *Guidance { return r.guidance }

// ResolveRoot returns the root chain: the global sources and the project
// root's own directory. It is what goes into a runtime's system prompt.
// The error is non-nil only when ctx is done or root is unusable.
func (r *Resolver) ResolveRoot(ctx context.Context, root string) (*Chain, error) {
	return r.resolve(ctx, root, "", false, scope{})
}

// ResolveTarget returns the chain for target: the global sources, then
// every directory from root down to the target's directory. A relative
// target is relative to root. The target may be a file or a directory and
// need not exist (a file about to be written belongs to its parent; a
// missing path ending in a separator is a directory). A target that leaves
// the root lexically or through a link, or that cannot be a path at all,
// yields the root chain with a warning saying so, never an error: the tool
// that asked will refuse the path itself.
//
// ResolveTarget ignores Guidance.SubdirectoryContext and project trust;
// deciding whether nested chains are delivered is the host's job.
func (r *Resolver) ResolveTarget(ctx context.Context, root, target string) (*Chain, error) {
	return r.resolve(ctx, root, target, true, scope{})
}

// scope says what a resolution covers beyond the plain root or target
// chain (see ResolveInFolder).
type scope struct {
	folder     string // a folder's name: project sources are labelled "NAME:path"
	globalOnly bool   // the global sources alone, no directory of the root
}

// run is the state of one resolution.
type run struct {
	r        *Resolver
	ctx      context.Context
	sys      sysCtx
	root     string
	folder   string // see scope
	sources  []Source
	skipped  []Skip
	warnings []string

	now       int64     // when the resolution started, in nanoseconds
	cacheable bool      // the platform gives directory keys
	dirs      []dirStat // directories lstat'ed so far (see noteDir)
	dirBuf    [12]dirStat
}

func (r *Resolver) resolve(ctx context.Context, root, target string, hasTarget bool, sc scope) (*Chain, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	memo := !hasTarget && filepath.IsAbs(root) && sc == scope{}
	if memo {
		if c, ok := r.recall(root); ok {
			return c, nil
		}
	}
	x := &run{r: r, ctx: ctx, folder: sc.folder, sources: make([]Source, 0, 8), skipped: []Skip{}, warnings: []string{}}
	x.sys.buf = make([]byte, 0, 256)
	if memo {
		x.sys.log = &probeLog{}
	}
	x.dirs = x.dirBuf[:0]
	// The clock is read before any directory is stat'ed: a key is trusted
	// only if it was already racyMargin old at this moment.
	if r.now != nil {
		x.now = r.now().UnixNano()
	} else {
		x.now = time.Now().UnixNano()
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil || root == "" {
		return nil, &RootError{Path: root, Err: os.ErrNotExist}
	}
	canon, fi, haveFI, err := canonicalInfo(&x.sys, rootAbs)
	if err == nil {
		if !haveFI {
			fi, err = x.sys.stat(canon)
		}
		if err == nil && fi.kind != kindDir {
			err = errNotDir
		}
	}
	if err != nil {
		return nil, &RootError{Path: rootAbs, Err: err}
	}
	x.root = canon
	x.cacheable = fi.timed
	x.noteDir(canon, fi)
	x.warnings = append(x.warnings, r.guidance.warnings...)
	chain := &Chain{Root: canon, Target: canon, Dir: canon, BudgetBytes: r.budget, Folder: sc.folder}

	if err := x.addGlobal(); err != nil {
		return nil, err
	}
	dir := canon
	if hasTarget && target != "" {
		loc, warn := x.locate(rootAbs, target)
		if warn != "" {
			x.warnings = append(x.warnings, warn)
			chain.Fallback = true
			chain.Target = loc.target
		} else {
			dir, chain.Target, chain.Dir = loc.dir, loc.target, loc.tdir
		}
	}
	if !sc.globalOnly {
		if err := x.walk(dir); err != nil {
			return nil, err
		}
	}
	x.applyBudget()
	chain.Sources, chain.Skipped, chain.Warnings = x.sources, x.skipped, x.warnings
	for i := range chain.Sources {
		chain.UsedBytes += chain.Sources[i].ShownBytes
	}
	chain.Text = Render(chain.Sources)
	if memo {
		r.remember(root, x, chain)
	}
	return chain, nil
}

// canonical returns path with links resolved, absolute and clean. The
// common case, a path without links, costs one lstat per component and no
// allocation; only a path through a link pays for filepath.EvalSymlinks.
func canonical(sys *sysCtx, path string) (string, error) {
	c, _, _, err := canonicalInfo(sys, path)
	return c, err
}

// canonicalInfo is canonical that also returns the lstat of the canonical
// path itself when it was reached without links (ok), so that the caller
// need not stat it again: the lstat of a path that is not a link is its stat.
func canonicalInfo(sys *sysCtx, path string) (c string, fi fileInfo, ok bool, err error) {
	p, err := filepath.Abs(path)
	if err != nil {
		return "", fileInfo{}, false, err
	}
	if filepath.Separator != '/' {
		c, err = filepath.EvalSymlinks(p)
		return c, fileInfo{}, false, err
	}
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		sys.loose = i < len(p)
		fi, err = sys.lstat(p[:i])
		sys.loose = false
		if err != nil {
			return "", fileInfo{}, false, err
		}
		if fi.kind == kindSymlink {
			sys.followed()
			c, err = filepath.EvalSymlinks(p)
			return c, fileInfo{}, false, err
		}
	}
	return p, fi, true, nil
}

// addGlobal adds A/AGENTS.md and A's provider files.
func (x *run) addGlobal() error {
	a := x.r.agentCanon
	if a == "" && x.r.agentDir != "" {
		if c, err := canonical(&x.sys, x.r.agentDir); err == nil {
			a = c
		}
	}
	if a == "" {
		return nil
	}
	if err := x.ctx.Err(); err != nil {
		return err
	}
	fi, err := x.sys.lstatIn(a, globalName)
	if err == nil || !isNotExist(err) {
		x.consider(ScopeGlobal, KindInstructions, a, a, globalName, fi, err)
	}
	for _, name := range x.r.files {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		x.provider(ScopeGlobal, a, a, name, nil)
	}
	return nil
}

// walk adds every directory from the root down to dir (canonical, inside
// the root), outer first.
func (x *run) walk(dir string) error {
	rel := ""
	if dir != x.root {
		rel = dir[len(trimSep(x.root))+1:]
	}
	d := x.root
	for {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		if underNodeModules(d, x.root) {
			x.warnings = append(x.warnings, fmt.Sprintf("%s is at or below node_modules; directories there contribute no instructions", safetext.Label(x.label(d))))
			return nil
		}
		if err := x.addDir(d); err != nil {
			return err
		}
		if rel == "" {
			return nil
		}
		i := strings.IndexByte(rel, filepath.Separator)
		if i < 0 {
			i = len(rel)
		}
		d = dir[:len(dir)-len(rel)+i]
		rel = strings.TrimPrefix(rel[i:], sep)
	}
}

const sep = string(filepath.Separator)

func trimSep(p string) string {
	if len(p) > 1 && p[len(p)-1] == filepath.Separator {
		return p[:len(p)-1]
	}
	if p == sep {
		return ""
	}
	return p
}

// underNodeModules reports whether dir, below root, has a node_modules
// segment. Only the part below the root counts: a project that itself
// lives in node_modules still gets its own instructions.
func underNodeModules(dir, root string) bool {
	if dir == root {
		return false
	}
	rel := dir[len(trimSep(root))+1:]
	for rel != "" {
		i := strings.IndexByte(rel, filepath.Separator)
		seg := rel
		if i >= 0 {
			seg, rel = rel[:i], rel[i+1:]
		} else {
			rel = ""
		}
		if seg == "node_modules" {
			return true
		}
	}
	return false
}

// addDir adds the winner of one project directory and the model's provider
// files there. Names recorded absent for the directory's current state are
// not probed again (see dirCache); all others are.
func (x *run) addDir(d string) error {
	key, keyed := x.dirKey(d)
	var known, found uint64 // names known absent before, found absent now
	if keyed {
		known = x.r.dirs.lookup(d, key)
	}
	record := keyed && settled(key, x.now)
	var probed [len(candidateNames)]probe
	for i, name := range candidateNames {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		bit := uint64(1) << i
		if known&bit != 0 {
			probed[i] = probe{done: true, err: fs.ErrNotExist}
			continue
		}
		fi, err := x.sys.lstatIn(d, name)
		probed[i] = probe{done: true, fi: fi, err: err}
		if err != nil {
			if isNotExist(err) {
				if record {
					found |= x.absent(d, i, err, known)
				}
				continue
			}
			if isPermission(err) && !strings.Contains(name, "/") {
				x.skip(d, "permission denied (directory)")
				return nil
			}
		}
		if x.consider(ScopeProject, KindInstructions, x.root, d, name, fi, err) {
			break
		}
	}
	for j, name := range x.r.files {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		bit := x.r.fileBits[j]
		if known&bit != 0 {
			continue // absent: provider would find nothing
		}
		var p *probe
		for i, c := range candidateNames {
			if c == name && probed[i].done {
				p = &probed[i]
			}
		}
		if x.provider(ScopeProject, x.root, d, name, p) && record {
			found |= bit
		}
	}
	if record && found&^known != 0 {
		x.r.dirs.record(d, key, known|found)
	}
	return nil
}

// absent returns the bits to record for candidate i in d after its probe
// failed with err: its own bit when lstat found no entry. For
// .claude/CLAUDE.md the bit means that .claude itself does not exist (what
// happens inside .claude leaves d's timestamps alone), so .claude is
// checked, unless known says it exists; that it exists is recorded too.
func (x *run) absent(d string, i int, err error, known uint64) uint64 {
	if !isENOENT(err) {
		return 0
	}
	if i != claudeDirIndex {
		return 1 << i
	}
	if known&claudeDirPresent != 0 {
		return 0
	}
	switch _, err := x.sys.lstatIn(d, ".claude"); {
	case err == nil:
		return claudeDirPresent
	case isENOENT(err):
		return 1 << i
	}
	return 0
}

type probe struct {
	done bool
	fi   fileInfo
	err  error
}

// consider tries one instruction candidate and reports whether it won the
// directory (a file that qualifies wins even when it is already in the
// chain through another path; it is then not loaded twice).
func (x *run) consider(scope, kind, base, dir, name string, fi fileInfo, statErr error) bool {
	path := joinPath(dir, name)
	if statErr != nil {
		x.skip(path, shortErr(statErr))
		return false
	}
	canon, info, reason := x.check(scope, base, dir, name, path, fi)
	if reason != "" {
		x.skip(path, reason)
		return false
	}
	if prev := x.findFile(info.id); prev != nil {
		if prev.Path != path {
			x.skip(path, "same file as "+safetext.Label(prev.Label))
		}
		return true
	}
	src, reason := x.read(scope, kind, dir, path, canon, info)
	if reason != "" {
		x.skip(path, reason)
		return false
	}
	x.sources = append(x.sources, src)
	return true
}

// provider adds one provider file unless it is absent, does not qualify, or
// its file or trimmed content is already in the chain. It reports whether
// the file was found absent (lstat said ENOENT).
func (x *run) provider(scope, base, dir, name string, p *probe) (absent bool) {
	path := joinPath(dir, name)
	for i := range x.sources {
		if x.sources[i].Path == path {
			return false // already loaded as this directory's instructions
		}
	}
	for i := range x.skipped {
		if x.skipped[i].Path == path {
			return false // already reported as a failed candidate
		}
	}
	var fi fileInfo
	var err error
	if p != nil {
		fi, err = p.fi, p.err
	} else {
		fi, err = x.sys.lstatIn(dir, name)
	}
	if err != nil {
		if !isNotExist(err) {
			x.skip(path, shortErr(err))
		}
		return isENOENT(err)
	}
	canon, info, reason := x.check(scope, base, dir, name, path, fi)
	if reason != "" {
		x.skip(path, reason)
		return false
	}
	if prev := x.findFile(info.id); prev != nil {
		if prev.Path != path {
			x.skip(path, "same file as "+safetext.Label(prev.Label))
		}
		return false
	}
	src, reason := x.read(scope, KindProvider, dir, path, canon, info)
	if reason != "" {
		x.skip(path, reason)
		return false
	}
	if src.complete {
		for i := range x.sources {
			if x.sources[i].complete && x.sources[i].text == src.text {
				x.skip(path, "same content as "+safetext.Label(x.sources[i].Label))
				return false
			}
		}
	}
	x.sources = append(x.sources, src)
	return false
}

func (x *run) findFile(id fileID) *Source {
	for i := range x.sources {
		if sameFile(x.sources[i].id, id) {
			return &x.sources[i]
		}
	}
	return nil
}

// check decides whether an existing candidate may be opened: its canonical
// path must stay inside base and it must be a regular file. It returns the
// canonical path and the stat of the file itself, or a skip reason.
func (x *run) check(scope, base, dir, name, path string, fi fileInfo) (string, fileInfo, string) {
	viaLink := fi.kind == kindSymlink
	if i := strings.IndexByte(name, '/'); i >= 0 && !viaLink {
		// .claude/CLAUDE.md: the kernel followed .claude if it is a link.
		pfi, err := x.sys.lstatIn(dir, name[:i])
		if err != nil {
			return "", fi, shortErr(err)
		}
		viaLink = pfi.kind == kindSymlink
	}
	canon := path
	if viaLink {
		x.sys.followed()
		c, err := filepath.EvalSymlinks(path)
		if err != nil {
			switch {
			case isLoop(err):
				return "", fi, "link loop"
			case isNotExist(err):
				return "", fi, "dangling link"
			}
			return "", fi, shortErr(err)
		}
		if !within(base, c) {
			if scope == ScopeGlobal {
				return "", fi, "link leaves the agent directory"
			}
			return "", fi, "link leaves the project root"
		}
		// Dependency trees are excluded on real paths too: a link into
		// node_modules does not bring a package's rules in.
		if scope == ScopeProject && underNodeModules(filepath.Dir(c), base) {
			return "", fi, "link into node_modules"
		}
		info, err := x.sys.stat(c)
		if err != nil {
			return "", fi, shortErr(err)
		}
		canon, fi = c, info
	}
	if fi.kind != kindRegular {
		return "", fi, "not a regular file (" + fi.kind.String() + ")"
	}
	return canon, fi, ""
}

// read reads and normalises a checked file, bounded by the budget.
func (x *run) read(scope, kind, dir, path, canon string, fi fileInfo) (Source, string) {
	// Read until the normalised text could fill the whole budget: CRLF
	// endings, a BOM or leading blank lines shrink the text, so a fixed
	// raw window would show a large CRLF file less than its fair share.
	// The raw read stays bounded whatever normalisation removes.
	limit := x.r.budget + readSlack
	maxRead := readGrowth * limit
	var (
		data     []byte
		text     []byte
		size     int64
		complete bool
		err      error
	)
	for {
		data, size, complete, err = readBounded(canon, fi, limit, x.r.readHook)
		if err != nil {
			return Source{}, shortErr(err)
		}
		text = normalize(data, complete)
		if complete || len(text) > x.r.budget || limit >= maxRead {
			break
		}
		limit = min(2*limit, maxRead)
	}
	if bytes.IndexByte(text, 0) >= 0 {
		// NUL never appears in text a person wrote; this is a binary
		// file (or a sparse one) that would only fill the budget.
		return Source{}, "binary content (NUL bytes); not loaded"
	}
	if len(text) == 0 {
		switch {
		case !complete:
			return Source{}, fmt.Sprintf("only white space in its first %d bytes (of %d); not loaded", limit, size)
		case size == 0:
			return Source{}, "empty"
		}
		return Source{}, "empty (only white space)"
	}
	return Source{
		Scope:     scope,
		Kind:      kind,
		Label:     x.label(path),
		Path:      path,
		Bytes:     int(size),
		Dir:       dir,
		Canonical: canon,
		id:        fi.id,
		text:      string(text),
		complete:  complete,
	}, ""
}

func (x *run) skip(path, reason string) {
	for i := range x.skipped {
		if x.skipped[i].Path == path {
			return
		}
	}
	x.skipped = append(x.skipped, Skip{Path: path, Reason: reason})
}

// label names a path for the model: root-relative for project paths,
// "~/..." (or absolute) under the agent directory.
func (x *run) label(path string) string {
	if rel, ok := relWithin(x.root, path); ok {
		switch {
		case x.folder != "":
			return x.folder + ":" + filepath.ToSlash(rel)
		case rel == "":
			return "."
		}
		return filepath.ToSlash(rel)
	}
	for _, a := range [...]string{x.r.agentCanon, x.r.agentDir} {
		if rel, ok := relWithin(a, path); ok && a != "" {
			if rel == "" {
				return x.r.agentLabel
			}
			return x.r.agentLabel + "/" + filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path)
}

// applyBudget shares the budget max-min fairly and cuts sources over their
// share.
func (x *run) applyBudget() {
	if len(x.sources) == 0 {
		return
	}
	demands := make([]int, len(x.sources))
	for i := range x.sources {
		demands[i] = len(x.sources[i].text)
	}
	shares := fairShares(demands, x.r.budget)
	for i := range x.sources {
		s := &x.sources[i]
		shown := cutText(s.text, shares[i])
		s.Truncated = len(shown) < len(s.text) || !s.complete
		if len(shown) < len(s.text) {
			// Keep only what is shown, not the whole read buffer.
			shown = strings.Clone(shown)
		}
		s.Content, s.ShownBytes = shown, len(shown)
		s.text = ""
	}
}

// joinPath joins a clean directory and a relative name without cleaning.
func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, sep) {
		return dir + name
	}
	return dir + sep + name
}

// within reports whether p is base or lies below it; both must be clean.
func within(base, p string) bool {
	_, ok := relWithin(base, p)
	return ok
}

// relWithin returns p relative to base when p is base or below it.
func relWithin(base, p string) (string, bool) {
	if base == "" {
		return "", false
	}
	if p == base {
		return "", true
	}
	b := trimSep(base)
	if len(p) > len(b) && p[len(b)] == filepath.Separator && p[:len(b)] == b {
		return p[len(b)+1:], true
	}
	return "", false
}
