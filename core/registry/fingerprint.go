package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/git"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// A project's fingerprint is what lets pi-tui recognise its folder after a
// move (ADR 0026): recorded while the folder is there, compared when a
// folder is added. It lives in the kv table under FingerprintNamespace,
// keyed by project id, so relocating (which re-keys rows keyed by the
// root) leaves it with its project.
const FingerprintNamespace = "projectFingerprint"

// Fingerprint is a folder's identity as far as it can be read cheaply and
// safely.
type Fingerprint struct {
	// Remotes are the git remote URLs in the repository's config, sorted,
	// with a trailing ".git" or "/" dropped.
	Remotes []string `json:"remotes,omitempty"`
	// Roots are the repository's root commits (git rev-list
	// --max-parents=0 HEAD), sorted; none when git is absent, the
	// repository is shallow or has no remote, or git did not answer in
	// time.
	Roots []string `json:"roots,omitempty"`
	// Base is the folder's name.
	Base string `json:"base"`
	// Instructions is a SHA-256 over the names and contents of the
	// instruction files at the root; "" when there are none.
	Instructions string `json:"instructions,omitempty"`
}

// Bounds on what is read to make a fingerprint. Anything larger is not
// read (a huge .git/config gives no remotes) rather than read in part.
const (
	maxGitConfig   = 256 << 10
	maxGitPointer  = 4 << 10 // a .git file or a commondir file
	maxRemotes     = 16
	maxRemoteLen   = 2048
	maxInstruction = 1 << 20
	gitTimeout     = 2 * time.Second
)

// instructionNames are the root files whose names and contents make the
// instruction hash: every candidate pi reads at a root, and the provider
// files.
var instructionNames = [...]string{
	"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD",
	".claude/CLAUDE.md", "CODEX.md", "GEMINI.md",
}

// gitRepo is what readGit learns from a folder's .git without running
// anything.
type gitRepo struct {
	remotes []string
	// runnable is true when running git there is judged safe: the config
	// was read whole, is text, includes no other file, and the repository
	// is not shallow (whose root commit is not the first).
	runnable bool
}

// readFingerprint reads root's fingerprint without its root commits.
func readFingerprint(root string) (Fingerprint, gitRepo) {
	g := readGit(root)
	return Fingerprint{Remotes: g.remotes, Base: filepath.Base(root), Instructions: instructionHash(root)}, g
}

// instructionHash hashes the instruction files at root, opened through
// an os.Root so that a link cannot lead outside, non-blocking and only
// when regular, each read up to maxInstruction bytes.
func instructionHash(root string) string {
	r, err := os.OpenRoot(root)
	if err != nil {
		return ""
	}
	defer r.Close()
	h := sha256.New()
	found := false
	for _, name := range instructionNames {
		f, err := r.OpenFile(name, os.O_RDONLY|fsutil.ONonblock, 0)
		if err != nil {
			continue
		}
		f, _, err = fsutil.CheckRegular(f)
		if err != nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, maxInstruction))
		f.Close()
		if err != nil {
			continue
		}
		found = true
		// Length-prefixed, so no two sets of files hash alike by shifting
		// bytes between a name and a content.
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(data))))
		h.Write(data)
	}
	if !found {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// readGit finds root's git directory (a .git folder, or a .git file
// pointing at one, as a worktree has) and reads its remotes from the
// config's text. Every read is a bounded, non-blocking read of a regular
// file; nothing is run.
func readGit(root string) gitRepo {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotGit)
	if err != nil {
		return gitRepo{}
	}
	gitDir := dotGit
	switch {
	case fi.IsDir():
	case fi.Mode().IsRegular():
		// "gitdir: PATH", relative to the folder holding the file.
		p, ok := readPointer(dotGit, "gitdir:")
		if !ok {
			return gitRepo{}
		}
		gitDir = resolveFrom(root, p)
	default:
		return gitRepo{}
	}
	common := gitDir
	if p, ok := readPointer(filepath.Join(gitDir, "commondir"), ""); ok {
		common = resolveFrom(gitDir, p)
	}
	data, _, err := fsutil.ReadRegular(filepath.Join(common, "config"), maxGitConfig)
	if err != nil {
		return gitRepo{}
	}
	remotes, includes := parseGitConfig(data)
	_, shallowErr := os.Lstat(filepath.Join(common, "shallow"))
	text := utf8.Valid(data) && bytes.IndexByte(data, 0) < 0
	return gitRepo{remotes: remotes, runnable: text && !includes && errors.Is(shallowErr, os.ErrNotExist)}
}

// readPointer reads a one-line pointer file (.git's "gitdir: PATH", a
// worktree's commondir) and returns the path after prefix.
func readPointer(path, prefix string) (string, bool) {
	data, _, err := fsutil.ReadRegular(path, maxGitPointer)
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	rest = strings.TrimSpace(rest)
	if !ok || rest == "" || strings.ContainsRune(rest, 0) {
		return "", false
	}
	return rest, true
}

func resolveFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// parseGitConfig reads the url values of remote sections from a git
// config's text, and whether it includes other files (which pi-tui does
// not follow, and which make running git there unsafe to judge). It
// handles what git writes itself: sections with quoted subsections,
// "key = value" lines, comments and quoted values. Binary or odd text
// yields whatever remote urls it plainly holds, never an error.
func parseGitConfig(data []byte) (remotes []string, includes bool) {
	remote := false
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		s := strings.TrimSpace(string(line))
		if strings.HasPrefix(s, "[") {
			end := strings.IndexByte(s, ']')
			if end < 0 {
				remote = false
				continue
			}
			head := strings.TrimSpace(s[1:end])
			name, _, _ := strings.Cut(head, " ")
			name = strings.ToLower(name)
			remote = name == "remote" || strings.HasPrefix(name, "remote.")
			if name == "include" || name == "includeif" || strings.HasPrefix(name, "include.") || strings.HasPrefix(name, "includeif.") {
				includes = true
			}
			s = strings.TrimSpace(s[end+1:]) // a key may follow on the same line
			if s == "" {
				continue
			}
		}
		if !remote {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "url") {
			continue
		}
		if u := cleanRemote(configValue(v)); u != "" && len(remotes) < maxRemotes && !slices.Contains(remotes, u) {
			remotes = append(remotes, u)
		}
	}
	slices.Sort(remotes)
	return remotes, includes
}

// configValue is a config value without its quotes and trailing comment.
func configValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			b.WriteByte(v[i])
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// cleanRemote is the form in which two spellings of one remote compare
// equal: without a trailing slash or ".git". A URL that is too long, not
// text, or empty is dropped.
func cleanRemote(u string) string {
	if len(u) > maxRemoteLen || !utf8Text(u) {
		return ""
	}
	u = strings.TrimRight(u, "/")
	u = strings.TrimSuffix(u, ".git")
	return strings.TrimRight(u, "/")
}

func utf8Text(s string) bool {
	if strings.ToValidUTF8(s, "\uFFFD") != s {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// rootCommits runs `git rev-list --max-parents=0 HEAD` in root, the one
// thing about a repository that cannot be read safely and cheaply without
// git (it needs the whole history walked through packed, compressed
// objects). git runs through core/git (so no program the repository's
// config names runs, and no hook or fsmonitor), with a timeout, an
// environment holding nothing of the user's, no system or global config,
// no transport (so a partial clone cannot fetch), no replace objects and
// no optional locks; it is not run at all where readGit judged it unsafe.
func rootCommits(ctx context.Context, g *git.Git, root string) []string {
	if g == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd, err := g.Command(ctx, root, "-c", "protocol.allow=never", "rev-list", "--max-parents=0", "HEAD")
	if err != nil {
		return nil
	}
	cmd.Env = append(cmd.Env, "GIT_NO_LAZY_FETCH=1", "GIT_NO_REPLACE_OBJECTS=1", "GIT_CEILING_DIRECTORIES="+filepath.Dir(root))
	cmd.Dir = root
	cmd.WaitDelay = 200 * time.Millisecond
	var out limitedBuffer
	out.limit = 64 << 10
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return nil
	}
	var roots []string
	for _, l := range strings.Fields(out.String()) {
		if isHex(l) && (len(l) == 40 || len(l) == 64) && len(roots) < 16 {
			roots = append(roots, l)
		}
	}
	slices.Sort(roots)
	return roots
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// limitedBuffer keeps the first limit bytes written to it and drops the
// rest, so a program's output cannot fill memory.
type limitedBuffer struct {
	bytes.Buffer
	limit int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// SetGit sets the git program the registry runs to find root commits;
// "" means none (root commits are then not recorded). Without a call,
// git is looked up in $PATH when first needed.
func (r *Registry) SetGit(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.git, r.gitKnown, r.gitRun = path, true, nil
}

// gitRunner is the registry's git, found (its version checked) when
// first needed; nil when there is none. It gets no variable of the
// user's: git finds itself on a PATH of its own folder, and reads no
// global or system config.
func (r *Registry) gitRunner(ctx context.Context) *git.Git {
	r.mu.Lock()
	if !r.gitKnown {
		r.git, _ = exec.LookPath("git")
		r.gitKnown = true
	}
	bin, g := r.git, r.gitRun
	r.mu.Unlock()
	if bin == "" || g != nil {
		return g
	}
	env := map[string]string{"PATH": filepath.Dir(bin), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull}
	g, err := git.Find(ctx, git.Options{Env: func(k string) string { return env[k] }, Timeout: gitTimeout})
	if err != nil {
		return nil
	}
	r.mu.Lock()
	if r.git == bin {
		r.gitRun = g
	}
	r.mu.Unlock()
	return g
}

// Fingerprint returns the fingerprint recorded for project id, if any.
func (r *Registry) Fingerprint(ctx context.Context, id string) (Fingerprint, bool, error) {
	fp, _, found, err := r.storedFingerprint(ctx, id)
	return fp, found, err
}

func (r *Registry) storedFingerprint(ctx context.Context, id string) (Fingerprint, string, bool, error) {
	kv, found, err := r.st.GetKV(ctx, FingerprintNamespace, id)
	if err != nil || !found {
		return Fingerprint{}, "", false, err
	}
	var fp Fingerprint
	if json.Unmarshal([]byte(kv.Value), &fp) != nil {
		return Fingerprint{}, kv.Value, false, nil // damaged: written over
	}
	return fp, kv.Value, true, nil
}

// Refresh depths: how much of a fingerprint is read again.
const (
	// refreshNoGit runs no program: root commits recorded before are
	// kept while the remotes are the same, and are unknown otherwise.
	refreshNoGit = iota
	// refreshCheap asks git only when the remotes changed since the last
	// record (or nothing was recorded): listing and opening a project.
	refreshCheap
	// refreshFull asks git again: adding and relocating a project.
	refreshFull
)

// recordFingerprint records the fingerprint of project id, whose folder
// is root, when the folder is there, and reports whether git was run.
// It writes only when something changed. Failing to record is not the
// caller's failure: the project is just harder to recognise after a
// move.
func (r *Registry) recordFingerprint(ctx context.Context, id, root string, depth int) (ranGit bool) {
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return false // a missing folder keeps the fingerprint it had
	}
	prev, prevJSON, found, err := r.storedFingerprint(ctx, id)
	if err != nil {
		return false
	}
	fp, g := readFingerprint(root)
	same := found && slices.Equal(prev.Remotes, fp.Remotes)
	switch {
	case len(fp.Remotes) == 0 || !g.runnable:
		// Root commits count only together with a remote.
	case depth == refreshNoGit && same, depth == refreshCheap && same:
		fp.Roots = prev.Roots
	case depth == refreshNoGit:
	default:
		fp.Roots, ranGit = rootCommits(ctx, r.gitRunner(ctx), root), true
	}
	b, _ := json.Marshal(fp)
	if string(b) == prevJSON {
		return ranGit
	}
	var base *string
	if prevJSON != "" {
		base = &prevJSON
	}
	// A conflict means another window recorded it meanwhile: theirs is as
	// fresh as this one.
	_ = r.st.CompareAndSwapKV(ctx, FingerprintNamespace, id, base, string(b))
	return ranGit
}

// RefreshFingerprints records the fingerprints of the given projects
// whose folders are there, cheaply: git runs only for a repository
// whose remotes changed since the last record, and at most gitRuns times
// in all (the first refresh after an upgrade meets many unrecorded
// repositories; the rest get theirs on a later refresh or when opened).
// The Projects tab calls it off the UI goroutine after its first load.
func (r *Registry) RefreshFingerprints(ctx context.Context, list []Project, gitRuns int) {
	for _, p := range list {
		if ctx.Err() != nil {
			return
		}
		if p.Missing {
			continue
		}
		depth := refreshCheap
		if gitRuns <= 0 {
			depth = refreshNoGit
		}
		if r.recordFingerprint(ctx, p.ID, p.Root, depth) {
			gitRuns--
		}
	}
}

// forgetFingerprint drops project id's fingerprint (it was removed).
func (r *Registry) forgetFingerprint(ctx context.Context, id string) {
	if kv, found, err := r.st.GetKV(ctx, FingerprintNamespace, id); err == nil && found {
		_ = r.st.CompareAndDeleteKV(ctx, FingerprintNamespace, id, kv.Value)
	}
}

// Match is a missing project that a folder being added looks like.
type Match struct {
	Project Project
	// Reason says what matched, for the sentence offering to relocate.
	Reason string
}

// Reasons a folder matches a missing project, strongest first.
const (
	ReasonGit          = "the same git remote and first commit"
	ReasonInstructions = "the same folder name and instruction files"
)

// MatchMissing reports whether the folder at path looks like a project
// whose folder is missing: the same git remote and root commit, or the
// same folder name and instruction files (at least one). A folder that
// is already a project, or one that cannot be read, matches nothing.
// When several projects match, the strongest reason wins, then the one
// opened (or added) last.
func (r *Registry) MatchMissing(ctx context.Context, path string) (Match, bool, error) {
	root, err := Canonical(path)
	if err != nil {
		return Match{}, false, nil // Add says what is wrong with it
	}
	fps, err := r.st.KVNamespace(ctx, FingerprintNamespace)
	if err != nil || len(fps) == 0 {
		return Match{}, false, err
	}
	if _, found, err := r.findPath(ctx, root); err != nil || found {
		return Match{}, false, err
	}
	cur, g := readFingerprint(root)
	// A record can match only if it holds one of the folder's remotes or
	// its instruction hash, as JSON spells them: most are passed over
	// without being decoded, and no other folder is looked at.
	var needles []string
	if g.runnable {
		for _, u := range cur.Remotes {
			j, _ := json.Marshal(u)
			needles = append(needles, string(j))
		}
	}
	if cur.Instructions != "" {
		needles = append(needles, `"`+cur.Instructions+`"`)
	}
	var roots []string
	rootsRead := false
	var best Match
	bestRank, bestAt := 0, int64(0)
	for id, raw := range fps {
		if !slices.ContainsFunc(needles, func(n string) bool { return strings.Contains(raw, n) }) {
			continue
		}
		var fp Fingerprint
		if json.Unmarshal([]byte(raw), &fp) != nil {
			continue
		}
		git := len(fp.Roots) > 0 && g.runnable && sharesAny(fp.Remotes, cur.Remotes)
		named := fp.Instructions != "" && fp.Instructions == cur.Instructions && fp.Base == cur.Base
		if !git && !named {
			continue
		}
		rows, err := r.st.ProjectsWhere(ctx, "", "id", id)
		if err != nil {
			return Match{}, false, err
		}
		if len(rows) != 1 {
			continue // a record left by a project removed meanwhile
		}
		row := rows[0]
		p := fromRow(row)
		if !p.Missing {
			continue // two clones of one repository are two projects
		}
		rank := 0
		if git {
			if !rootsRead {
				roots, rootsRead = rootCommits(ctx, r.gitRunner(ctx), root), true
			}
			if sharesAny(fp.Roots, roots) {
				rank = 2
			}
		}
		if rank == 0 && named {
			rank = 1
		}
		if rank == 0 {
			continue
		}
		at := max(row.CreatedAt, row.LastOpenedAt)
		if rank > bestRank || (rank == bestRank && (at > bestAt || at == bestAt && p.ID < best.Project.ID)) {
			best, bestRank, bestAt = Match{Project: p, Reason: ReasonInstructions}, rank, at
			if rank == 2 {
				best.Reason = ReasonGit
			}
		}
	}
	if bestRank == 0 {
		return Match{}, false, nil
	}
	best.Project = r.withTrust(ctx, best.Project)
	return best, true, nil
}

func sharesAny(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
