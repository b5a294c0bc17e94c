package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// guard is what one folder's git calls get against its repository's
// config: the -c overrides, the programs they withhold, and the stamps of
// every file the config was read from (and every file that would change
// it by appearing), which say when it must be read again.
type guard struct {
	args     []string
	withheld []Program
	stamps   []stamp
	loc      *location
}

// location is where dir's repository and its config files are, known
// from a git rev-parse; it holds while the files that decide it (the
// .git of dir and the folders above, the worktree's commondir) are as
// they were stamped.
type location struct {
	paths   []string // the candidate config files, before any is read
	top     string   // the checkout's top folder (dir outside a checkout)
	markers []stamp
}

// maxGuards bounds the folders whose guard is kept (a folder per
// checkout and worktree pi-tui works in).
const maxGuards = 256

// maxConfigList bounds the listing of a repository's config; a larger
// one is refused rather than read in part.
const maxConfigList = 8 << 20

// guardFor returns the guard of dir: from the cache while none of its
// files changed, else read anew (a git config run, and a git rev-parse
// first when where the repository is may have changed too).
func (g *Git) guardFor(ctx context.Context, dir string) (*guard, error) {
	key := dir
	if key == "" {
		key, _ = os.Getwd()
	}
	key, _ = filepath.Abs(key)
	g.mu.Lock()
	cur := g.guards[key]
	g.mu.Unlock()
	if cur != nil && fresh(cur.stamps) {
		return cur, nil
	}
	var loc *location
	if cur != nil && fresh(cur.loc.markers) {
		loc = cur.loc
	} else {
		var err error
		if loc, err = g.locate(ctx, dir, key); err != nil {
			return nil, err
		}
	}
	gd, settled, err := g.readGuard(ctx, dir, loc)
	if err != nil {
		return nil, err
	}
	if settled {
		g.mu.Lock()
		if len(g.guards) >= maxGuards {
			clear(g.guards)
		}
		g.guards[key] = gd
		g.mu.Unlock()
	}
	return gd, nil
}

// readGuard reads dir's config. The files are stamped before and after
// the read; a read during which one changed, or that named a file not
// stamped before (an include), is done again, so the cached guard never
// pairs old settings with new stamps. settled is false when the files
// kept changing: the guard then serves this one call.
func (g *Git) readGuard(ctx context.Context, dir string, loc *location) (*guard, bool, error) {
	paths, top := loc.paths, loc.top
	for range 3 {
		before := stampAll(paths)
		entries, err := g.listConfig(ctx, dir, top)
		if err != nil {
			return nil, false, err
		}
		if entries, err = g.includedAnyway(ctx, entries); err != nil {
			return nil, false, err
		}
		next := addPaths(paths, configFiles(entries, g.vars["HOME"])...)
		after := stampAll(next)
		args, withheld, err := overrides(entries, g.userSet())
		if err != nil {
			return nil, false, err
		}
		gd := &guard{args: args, withheld: withheld, stamps: after, loc: loc}
		if len(next) == len(paths) && slicesEqual(before, after) {
			return gd, true, nil
		}
		paths = next
		if ctx.Err() != nil {
			return gd, false, nil
		}
	}
	entries, err := g.listConfig(ctx, dir, top)
	if err != nil {
		return nil, false, err
	}
	if entries, err = g.includedAnyway(ctx, entries); err != nil {
		return nil, false, err
	}
	args, withheld, err := overrides(entries, g.userSet())
	return &guard{args: args, withheld: withheld, loc: loc}, false, err
}

func slicesEqual(a, b []stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// listConfig lists every setting git reads in dir, includes followed,
// with its scope and file. git names a file relative to the folder it
// works in, the checkout's top.
func (g *Git) listConfig(ctx context.Context, dir, top string) ([]entry, error) {
	scoped := g.AtLeast(2, 26)
	args := []string{"config", "--list", "--show-origin", "--includes", "-z"}
	if scoped {
		args = append(args, "--show-scope")
	}
	out, err := g.plain(ctx, dir, maxConfigList, args...)
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && ge.cut {
			return nil, fmt.Errorf("the git config of %s is over %d MiB; pi-tui does not run git there", top, maxConfigList>>20)
		}
		return nil, err
	}
	return parseList(out, top, scoped), nil
}

// locate finds the files whose appearance or change would change dir's
// config, known before reading it: the repository's config and
// config.worktree, the .git of dir and of every folder above it up to
// the checkout's top (a new one would make another repository), the
// worktree's commondir pointer, and the user's global files. Outside a
// repository (git says so) there are the user's files only; an answer of
// git's that cannot be read is an error, and no git runs there.
func (g *Git) locate(ctx context.Context, dir, abs string) (*location, error) {
	// The .git of every folder up to the root is stamped before git says
	// where the repository is, so a change meanwhile is not missed.
	var chain []string
	for d := abs; ; d = filepath.Dir(d) {
		chain = append(chain, filepath.Join(d, ".git"))
		if filepath.Dir(d) == d {
			break
		}
	}
	before := stampAll(chain)
	loc := &location{}
	where, err := g.where(ctx, dir)
	var ge *Error
	switch {
	case err == nil:
		gitDir, common := where[0], absFrom(abs, where[1])
		loc.top = where[2]
		loc.paths = addPaths(loc.paths, filepath.Join(common, "config"), filepath.Join(gitDir, "config.worktree"))
		loc.markers = append(loc.markers, stampOf(filepath.Join(gitDir, "commondir")))
	case !errors.As(err, &ge):
		return nil, err
	}
	for _, m := range before {
		loc.markers = append(loc.markers, m)
		if filepath.Dir(m.path) == loc.top {
			break
		}
	}
	if loc.top == "" {
		loc.top = abs
	}
	for _, m := range loc.markers {
		loc.paths = addPaths(loc.paths, m.path)
	}
	loc.paths = addPaths(loc.paths, g.userFiles()...)
	return loc, nil
}

// whereFlags ask git rev-parse where a folder's repository is: its git
// folder, its common folder (where the config is), the checkout's top.
var whereFlags = []string{"--absolute-git-dir", "--git-common-dir", "--show-toplevel"}

// where is git rev-parse's answer to whereFlags in dir. git ends each
// path with a line break and quotes none, so a path may hold line breaks
// of its own (a folder named so). Splitting such an answer by lines
// would stamp config files where they are not, and a config changed
// after a first call would go unseen: its programs would run. So the one
// answer is taken only when it holds one break per path (git 2.25 and
// later print a line for each flag or fail); else each path is asked on
// its own, its last break cut and nothing else.
func (g *Git) where(ctx context.Context, dir string) ([3]string, error) {
	var out [3]string
	all, err := g.plain(ctx, dir, 64<<10, append([]string{"rev-parse"}, whereFlags...)...)
	if err != nil {
		return out, err
	}
	if g.AtLeast(2, 25) && strings.Count(all, "\n") == len(whereFlags) {
		copy(out[:], strings.Split(strings.TrimSuffix(all, "\n"), "\n"))
		return out, nil
	}
	for i, f := range whereFlags {
		one, err := g.plain(ctx, dir, 64<<10, "rev-parse", f)
		if err != nil {
			return out, err
		}
		if one == "" && f == "--show-toplevel" {
			continue // no checkout (a bare repository, before git 2.25)
		}
		p, ok := strings.CutSuffix(one, "\n")
		if !ok || p == "" {
			return out, fmt.Errorf("git rev-parse %s in %q said %q, not a path: pi-tui does not run git there", f, dir, one)
		}
		out[i] = p
	}
	return out, nil
}

// configFiles are the files entries were read from, and the files their
// include.path and includeIf.*.path settings name, there or not.
func configFiles(entries []entry, home string) []string {
	var files []string
	for _, e := range entries {
		files = addPaths(files, e.origin)
		if p, ok := includeTarget(e, home); ok {
			files = addPaths(files, p)
		}
	}
	return files
}

// includeTarget is the file an include.path or includeIf.*.path setting
// names, as git finds it: "~/" in the home folder, a relative path next
// to the file that says so.
func includeTarget(e entry, home string) (string, bool) {
	section, _, name := splitKey(e.key)
	if name != "path" || (section != "include" && section != "includeif") || e.origin == "" || e.value == "" {
		return "", false
	}
	p := e.value
	switch {
	case strings.HasPrefix(p, "~/") && home != "":
		p = filepath.Join(home, p[2:])
	case !filepath.IsAbs(p):
		p = filepath.Join(filepath.Dir(e.origin), p)
	}
	return filepath.Clean(p), true
}

// userFiles are the user's global and system config files, as git finds
// them in the environment it is given.
func (g *Git) userFiles() []string {
	var files []string
	home := g.vars["HOME"]
	switch {
	case g.vars["GIT_CONFIG_GLOBAL"] != "":
		files = append(files, absFrom(home, g.vars["GIT_CONFIG_GLOBAL"]))
	case home != "":
		files = append(files, filepath.Join(home, ".gitconfig"))
		xdg := g.vars["XDG_CONFIG_HOME"]
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if g.vars["GIT_CONFIG_NOSYSTEM"] == "" {
		files = append(files, "/etc/gitconfig")
	}
	return files
}

func (g *Git) userSet() map[string]bool {
	set := map[string]bool{}
	for _, f := range g.userFiles() {
		set[f] = true
	}
	return set
}

func absFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// explain names the withheld programs a failure may come from: a filter
// git says failed ("smudge filter crypt failed", "clean filter 'crypt'
// failed"), or a program given as empty ("cannot run : …" is git trying
// to run the empty command pi-tui gave in its place).
func (gd *guard) explain(stderr string) []Program {
	var out []Program
	empty := strings.Contains(stderr, "cannot run :")
	refused := strings.Contains(stderr, "transport 'file' not allowed") || strings.Contains(stderr, "transport 'ssh' not allowed")
	for _, p := range gd.withheld {
		section, sub, name := splitKey(p.Key)
		if section == "remote" && (name == "uploadpack" || name == "receivepack") {
			if refused {
				out = append(out, p)
			}
			continue
		}
		if section != "filter" {
			if empty {
				out = append(out, p)
			}
			continue
		}
		which := strings.Contains(stderr, name+" filter "+sub+" failed") || strings.Contains(stderr, name+" filter '"+sub+"' failed")
		other := strings.Contains(stderr, "filter '"+sub+"'") || strings.Contains(stderr, "filter "+sub+" ")
		if which || (name == "process" && other) {
			out = append(out, p)
		}
	}
	return out
}

// Withheld lists the programs the config of dir's repository names that
// pi-tui's git calls there do not run: for a sentence before an
// operation that would need one (a merge driver, a required filter).
func (g *Git) Withheld(ctx context.Context, dir string) ([]Program, error) {
	gd, err := g.guardFor(ctx, dir)
	if err != nil {
		return nil, err
	}
	return gd.withheld, nil
}
