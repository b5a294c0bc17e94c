//go:build unix

package instructions

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// The differential fuzz test builds a random project tree from the input and
// checks the resolver against refResolve, a deliberately naive reading of
// the rules: os.Lstat, filepath.EvalSymlinks, os.Stat and os.ReadFile on
// every candidate, no fast paths, no shared code with the resolver.

var (
	fuzzDirs     = []string{"", "a", "a/b", "a/b/c", "node_modules", "a/node_modules/x", "d", "a/b/c/e"}
	fuzzNames    = []string{"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD", ".claude/CLAUDE.md", "CODEX.md", "GEMINI.md", ".claude"}
	fuzzContents = []string{"rules one", "", " \n\t", "same", "\nsame \r\n", "\xef\xbb\xbfbom rules", "crlf\r\nline\r\n", "bad \xff utf8", "rules two\n"}
	fuzzTargets  = []string{"", "a/b/c/f.go", "a/b/c/e/", "a/link/f.go", "node_modules/x/f", "d/new/f.go", "a/b", "../x", "a/../d/g", "out/x", "a/b/c/e/AGENTS.md"}
	fuzzModels   = []Model{{}, {"anthropic", "claude"}, {"openai", "gpt"}, {"google", "gemini"}}
)

func FuzzResolveDifferential(f *testing.F) {
	f.Add([]byte{0, 1, 1, 0, 3, 0, 2, 3, 1, 0})
	f.Add([]byte{1, 2, 0, 0, 1, 2, 3, 0, 2, 1, 4, 3, 2, 6})
	f.Add([]byte{2, 3, 0, 1, 1, 0, 3, 1, 2, 1, 4, 1, 5, 0, 0, 0, 0, 3, 6, 0, 5, 2, 0})
	f.Add([]byte{7, 1, 0, 2, 1, 5, 6, 0, 4, 3, 3, 2, 0, 1, 4, 1, 3, 3, 0, 0, 5})
	f.Add([]byte{3, 1, 4, 4, 4, 2, 0, 4, 8, 1, 1, 5, 1, 0, 3, 6, 2, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 64 {
			return
		}
		fz := newFuzzTree(t, data)
		for i := 2; i+3 < len(data); i += 4 {
			fz.apply(data[i:i+4], 9)
		}
		fz.check(New(Options{AgentDir: fz.agent, Model: fz.model}))
	})
}

// FuzzResolveCached is FuzzResolveDifferential with one Resolver reused
// across a mutation of the tree: the tree is built from the first half of
// the input, made to look old (mtimes an hour back, the Resolver's clock an
// hour ahead, so its directories are cached), resolved and compared with
// the reference; then the second half mutates it (creating, replacing,
// removing, turning files into FIFOs, forging directory mtimes back) and
// the same Resolver must again agree with the reference.
func FuzzResolveCached(f *testing.F) {
	f.Add([]byte{1, 1, 0, 1, 1, 0, 0, 2, 1, 0}, []byte{0, 1, 1, 0, 10, 2, 3, 0, 11, 2, 3, 0})
	f.Add([]byte{1, 1, 0, 1, 1, 0}, []byte{9, 1, 1, 0, 0, 2, 5, 0, 11, 2, 5, 0})
	f.Add([]byte{1, 4, 1, 0, 8, 0}, []byte{0, 0, 5, 0, 11, 0, 5, 0})
	f.Add([]byte{2, 1, 0, 2, 7, 0}, []byte{0, 2, 7, 1, 10, 3, 1, 0})
	f.Add([]byte{0, 1, 4, 3, 0, 0}, []byte{0, 3, 5, 0, 4, 2, 2, 0, 12, 3, 0, 0})
	f.Fuzz(func(t *testing.T, build, mutate []byte) {
		if len(build) < 2 || len(build) > 48 || len(mutate) > 32 {
			return
		}
		fz := newFuzzTree(t, build)
		for i := 2; i+3 < len(build); i += 4 {
			fz.apply(build[i:i+4], 9)
		}
		old := time.Now().Add(-time.Hour)
		for _, d := range []string{fz.root, fz.agent, fz.outside} {
			filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
				if err == nil && e.IsDir() {
					os.Chtimes(p, old, old)
				}
				return nil
			})
		}
		r := New(Options{AgentDir: fz.agent, Model: fz.model})
		r.now = func() time.Time { return time.Now().Add(time.Hour) }
		fz.check(r)
		// Every later change must get other timestamps than those the
		// cache recorded, or forging an mtime back could go unnoticed in
		// the same clock tick (the real clock's margin prevents that).
		waitClockTick(t, fz.root)
		for i := 0; i+3 < len(mutate); i += 4 {
			fz.apply(mutate[i:i+4], 13)
		}
		fz.check(r)
	})
}

// fuzzTree is a project, an agent dir and an outside dir built from fuzz
// input.
type fuzzTree struct {
	t                    *testing.T
	root, agent, outside string
	model                Model
	target               string
	old                  time.Time
}

func newFuzzTree(t *testing.T, data []byte) *fuzzTree {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fz := &fuzzTree{t: t, root: filepath.Join(base, "proj"), agent: filepath.Join(base, "agent"), outside: filepath.Join(base, "out")}
	for _, d := range []string{fz.root, fz.agent, filepath.Join(fz.outside, "od")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(fz.outside, "AGENTS.md"), []byte("outside"), 0o644)
	os.WriteFile(filepath.Join(fz.outside, "CLAUDE.md"), []byte("outside claude"), 0o644)
	fz.model = fuzzModels[int(data[0])%len(fuzzModels)]
	fz.target = fuzzTargets[int(data[1])%len(fuzzTargets)]
	fz.old = time.Now().Add(-time.Hour)
	return fz
}

// apply performs one operation of four bytes: op, directory, name, detail.
// Operations 0-8 build; 9-12 are the mutations (remove, FIFO, forged mtime,
// rewrite) that only FuzzResolveCached uses (ops is the number of them).
func (fz *fuzzTree) apply(op []byte, ops int) {
	root, agent, outside := fz.root, fz.agent, fz.outside
	pick := func(b byte, list []string) string { return list[int(b)%len(list)] }
	kind := int(op[0]) % ops
	dirRel := pick(op[1], fuzzDirs)
	dir := filepath.Join(root, dirRel)
	if kind == 7 {
		dir = agent
	}
	name := pick(op[2], fuzzNames)
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	switch kind {
	case 0, 7: // a file
		writeNonblock(p, pick(op[3], fuzzContents))
	case 1: // a directory named like a candidate
		os.MkdirAll(p, 0o755)
	case 2: // a link to another candidate, inside the root
		os.Symlink(filepath.Join(root, pick(op[3], fuzzDirs), pick(op[3], fuzzNames)), p)
	case 3: // a link leaving the root
		os.Symlink(filepath.Join(outside, pick(op[3], []string{"AGENTS.md", "CLAUDE.md", "od", "missing"})), p)
	case 4: // a directory link, inside or outside
		l := filepath.Join(root, "a", "link")
		if op[3]%2 == 0 {
			l = filepath.Join(dir, ".claude")
		}
		os.MkdirAll(filepath.Dir(l), 0o755)
		os.Symlink(filepath.Join(root, pick(op[3], fuzzDirs)), l)
		if op[3]%3 == 0 {
			os.Remove(l)
			os.Symlink(outside, l)
		}
	case 5: // dangling or looping link
		if op[3]%2 == 0 {
			os.Symlink("nowhere", p)
		} else {
			os.Symlink(name, p)
		}
	case 6: // a relative link
		os.Symlink(pick(op[3], []string{"AGENTS.md", "../AGENTS.md", "../../AGENTS.md", "CLAUDE.md", "../../../out/CLAUDE.md"}), p)
	case 8: // identical content in two places
		writeNonblock(p, "same")
	case 9: // removed, whatever it was
		removeAll(p)
	case 10: // replaced by a FIFO
		removeAll(p)
		syscall.Mkfifo(p, 0o644)
	case 11: // the directory's mtime forged back to the old value
		os.Chtimes(dir, fz.old, fz.old)
		if op[3]%2 == 0 {
			os.Chtimes(filepath.Dir(p), fz.old, fz.old)
		}
	case 12: // content rewritten in place (the directory does not change)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			writeNonblock(p, pick(op[3], fuzzContents))
		}
	}
}

// removeAll is os.RemoveAll for a tree that may hold FIFOs: RemoveAll
// opens the parent folder, which blocks forever when an earlier step made
// that "folder" a FIFO (or a link to one). A parent that is not a folder
// holds nothing to remove. (The fuzzer found this hang in the harness.)
func removeAll(p string) {
	if fi, err := os.Stat(filepath.Dir(p)); err != nil || !fi.IsDir() {
		return
	}
	os.RemoveAll(p)
}

// writeNonblock is os.WriteFile that fails instead of waiting when p is (or
// links to) a FIFO without a reader.
func writeNonblock(p, content string) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return
	}
	f.WriteString(content)
	f.Close()
}

// check resolves the fuzz target with r and compares with refResolve.
func (fz *fuzzTree) check(r *Resolver) {
	t := fz.t
	t.Helper()
	got, err := r.ResolveTarget(context.Background(), fz.root, fz.target)
	if err != nil {
		t.Fatal(err)
	}
	want := refResolve(fz.root, fz.agent, r.Guidance().FilesFor(fz.model), fz.target)
	var g []string
	for _, s := range got.Sources {
		if s.Truncated {
			t.Fatalf("unexpected cut of %s", s.Path)
		}
		g = append(g, s.Path+"="+s.Content)
	}
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Fatalf("target %q model %v\n got %q\nwant %q\nskipped %+v\nwarnings %q", fz.target, fz.model, g, want, got.Skipped, got.Warnings)
	}
	if got.UsedBytes > got.BudgetBytes || !utf8.ValidString(got.Text) {
		t.Fatalf("used %d", got.UsedBytes)
	}
}

type refSource struct {
	path, content string
	fi            os.FileInfo
}

func refResolve(root, agent string, files []string, target string) []string {
	var chain []refSource
	add := func(base, dir, name string, provider bool) bool {
		p := filepath.Join(dir, name)
		if provider {
			for _, s := range chain {
				if s.path == p {
					return false
				}
			}
		}
		if _, err := os.Lstat(p); err != nil {
			return false
		}
		c, err := filepath.EvalSymlinks(p)
		if err != nil || !refWithin(base, c) {
			return false
		}
		if base == root && strings.Contains("/"+strings.TrimPrefix(filepath.Dir(c), root)+"/", "/node_modules/") {
			return false // a link into a dependency tree
		}
		fi, err := os.Stat(c)
		if err != nil || !fi.Mode().IsRegular() {
			return false
		}
		raw, err := os.ReadFile(c)
		if err != nil {
			return false
		}
		s := strings.TrimPrefix(string(raw), "\ufeff")
		s = strings.TrimSpace(refValidUTF8(strings.ReplaceAll(s, "\r\n", "\n")))
		if s == "" || strings.ContainsRune(s, 0) {
			return false
		}
		for _, prev := range chain {
			if os.SameFile(prev.fi, fi) || (provider && prev.content == s) {
				return true
			}
		}
		chain = append(chain, refSource{p, s, fi})
		return true
	}
	if a, err := filepath.EvalSymlinks(agent); err == nil {
		add(a, a, "AGENTS.md", false)
		for _, f := range files {
			add(a, a, f, true)
		}
	}
	dir := root
	abs := filepath.Join(root, target)
	if refWithin(root, abs) {
		if canon, ok := refCanonical(abs); ok && refWithin(root, canon) {
			dir = canon
			for {
				if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
					break
				}
				dir = filepath.Dir(dir)
			}
		}
	}
	rel, _ := filepath.Rel(root, dir)
	d := root
	for i, seg := range append([]string{""}, strings.Split(rel, "/")...) {
		if i > 0 {
			if seg == "." {
				break
			}
			if seg == "node_modules" {
				break
			}
			d = filepath.Join(d, seg)
		}
		for _, name := range candidateNamesForRef() {
			if add(root, d, name, false) {
				break
			}
		}
		for _, f := range files {
			add(root, d, f, true)
		}
	}
	var out []string
	for _, s := range chain {
		out = append(out, s.path+"="+s.content)
	}
	return out
}

func candidateNamesForRef() []string {
	return []string{"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD", ".claude/CLAUDE.md"}
}

func refCanonical(abs string) (string, bool) {
	p, rest := abs, ""
	for {
		if c, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(c, rest), true
		}
		if _, err := os.Lstat(p); err == nil {
			return "", false
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = filepath.Dir(p)
	}
}

func refWithin(base, p string) bool {
	return p == base || strings.HasPrefix(p, base+"/")
}

func FuzzGuidance(f *testing.F) {
	for _, s := range []string{
		`{"providers":{"anthropic":["CLAUDE.md"]},"models":{"claude-3-5*":["C.md"]},"subdirectoryContext":false}`,
		`{"models":{"*":[]}}`, `{"x":[1,{"y":null}],"models":{}}`, `[]`, `{`, `{"providers":{"a":[1]}}`,
		`{"subdirectoryContext":"no"}`, "\xff", `{"models":{"**a*b**":["x"]}}`,
	} {
		f.Add([]byte(s), "claude-3-5-sonnet")
	}
	f.Fuzz(func(t *testing.T, data []byte, id string) {
		g, err := ParseGuidance(data)
		if err != nil {
			if g != nil {
				t.Fatal("guidance with an error")
			}
			return
		}
		for _, f := range g.FilesFor(Model{Provider: "anthropic", ID: id}) {
			if !validFileName(f) {
				t.Fatalf("invalid file name %q accepted", f)
			}
		}
		// '*' alone matches everything; a pattern equal to the ID matches it.
		if !matchPattern("*", strings.ToLower(id)) || !matchPattern(strings.ToLower(id), strings.ToLower(id)) {
			t.Fatalf("pattern match of %q", id)
		}
	})
}

func FuzzCut(f *testing.F) {
	f.Add([]byte("日本語\nのルール"), 5, true)
	f.Add([]byte("\xef\xbb\xbfa\r\nb\xff\xfe"), 3, false)
	f.Add([]byte("abc\n\n\n   "), 4, true)
	f.Fuzz(func(t *testing.T, data []byte, limit int, complete bool) {
		if limit < -1 || limit > 1<<20 {
			return
		}
		norm := normalize(append([]byte(nil), data...), complete)
		if !utf8.Valid(norm) {
			t.Fatalf("normalize(%q) = %q is not valid UTF-8", data, norm)
		}
		s := string(norm)
		out := cutText(s, limit)
		if !utf8.ValidString(out) || !strings.HasPrefix(s, out) || (len(out) > max(limit, 0) && limit < len(s)) {
			t.Fatalf("cutText(%q, %d) = %q", s, limit, out)
		}
		// Raw, possibly invalid input must not panic either.
		_ = cutText(string(data), limit)
	})
}

// refValidUTF8 is the WHATWG UTF-8 decoder written as the standard states
// it (bytes needed, bytes seen, lower and upper boundary), independent of
// replaceInvalid: an error emits U+FFFD and the byte that broke a sequence
// is looked at again.
func refValidUTF8(s string) string {
	var b strings.Builder
	need, seen, lower, upper := 0, 0, byte(0x80), byte(0xBF)
	var cp rune
	for i := 0; i < len(s); i++ {
		c := s[i]
		if need == 0 {
			switch {
			case c <= 0x7F:
				b.WriteByte(c)
			case c >= 0xC2 && c <= 0xDF:
				need, cp = 1, rune(c&0x1F)
			case c >= 0xE0 && c <= 0xEF:
				if c == 0xE0 {
					lower = 0xA0
				}
				if c == 0xED {
					upper = 0x9F
				}
				need, cp = 2, rune(c&0x0F)
			case c >= 0xF0 && c <= 0xF4:
				if c == 0xF0 {
					lower = 0x90
				}
				if c == 0xF4 {
					upper = 0x8F
				}
				need, cp = 3, rune(c&0x07)
			default:
				b.WriteString("\uFFFD")
			}
			continue
		}
		if c < lower || c > upper {
			need, seen, cp, lower, upper = 0, 0, 0, 0x80, 0xBF
			b.WriteString("\uFFFD")
			i-- // prepend the byte to the stream
			continue
		}
		lower, upper = 0x80, 0xBF
		cp = cp<<6 | rune(c&0x3F)
		seen++
		if seen == need {
			b.WriteRune(cp)
			need, seen, cp = 0, 0, 0
		}
	}
	if need != 0 {
		b.WriteString("\uFFFD")
	}
	return b.String()
}
