package filesearch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/internal/fsutil"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// What pi does with "pi @file.go 'explain it'" (packages/coding-agent,
// cli/file-processor.ts): each file becomes
//
//	<file name="/abs/path">\n<content>\n</file>\n
//
// and the blocks come before the message; an empty file is skipped; an
// image is attached as an image with an empty element naming it. pi-tui
// does the same for every @path in a chat message that names a file in the
// project, with these differences, each for safety: the file is opened
// through an os.Root on the project (no link leads out, no FIFO blocks);
// the name is quoted with safetext.Label (a file name cannot close the
// attribute); tags in the content that could close or open a <file>
// element (or pi-tui's own frame markers) are defused, so a file cannot
// end its element early and pass text off as the user's; a file too large
// or binary is named with a note instead of its bytes (pi-tui sends text
// only); invalid UTF-8 is replaced with U+FFFD, as pi's UTF-8 decoding
// does.

// AttachLimits bound what one message attaches.
type AttachLimits struct {
	PerFile int64 // bytes of one file at most
	Total   int64 // bytes of all files of one message at most
}

// DefaultAttachLimits keep a message well inside a model's context.
func DefaultAttachLimits() AttachLimits { return AttachLimits{PerFile: 256 << 10, Total: 1 << 20} }

// Attached says what happened to one @path of a message.
type Attached struct {
	Path  string // relative to its folder, slash-separated; NAME:path in a folder other than the primary root
	Lines int    // lines attached (0 when only a note was)
	Note  string // why the content was not attached, or what was changed
}

// Attach returns text with the content of each project file it names as
// @path (or @"path with spaces") before it, as pi attaches @file
// arguments, and a report per file. An @word that names no file of the
// project (a mention, a path outside the project) stays plain text.
func Attach(ctx context.Context, root, text string, lim AttachLimits) (string, []Attached) {
	return AttachIn(ctx, root, nil, text, lim)
}

// AttachIn is Attach for a project of several folders (ADR 0085): root is
// its primary root, whose files are named @path, and others its other
// folders, whose files are named @NAME:path (or by an absolute path inside
// the folder). Each folder's files are opened through an os.Root on that
// folder.
func AttachIn(ctx context.Context, root string, others []Folder, text string, lim AttachLimits) (string, []Attached) {
	refs := References(text)
	if len(refs) == 0 {
		return text, nil
	}
	opened := map[string]*os.Root{}
	defer func() {
		for _, r := range opened {
			if r != nil {
				r.Close()
			}
		}
	}()
	open := func(dir string) *os.Root {
		r, ok := opened[dir]
		if !ok {
			r, _ = os.OpenRoot(dir) // nil when it cannot be opened
			opened[dir] = r
		}
		return r
	}
	var b strings.Builder
	var report []Attached
	seen := map[string]bool{}
	budget := lim.Total
	for _, ref := range refs {
		if ctx.Err() != nil {
			break
		}
		dir, name, rel, ok := folderPath(root, others, ref)
		if !ok || seen[dir+"\x00"+rel] {
			continue
		}
		r := open(dir)
		if r == nil {
			continue
		}
		content, note, ok := readAttachment(r, rel, min(lim.PerFile, budget))
		if !ok {
			continue
		}
		seen[dir+"\x00"+rel] = true
		if content == "" && note == "" {
			continue // pi skips empty files
		}
		budget -= int64(len(content))
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		b.WriteString("<file name=" + safetext.Label(abs) + ">")
		a := Attached{Path: Written(name, rel)}
		if note != "" && content == "" {
			b.WriteString("(" + note + ")")
			a.Note = note
		} else {
			b.WriteString("\n" + neutralizeFileTags(content) + "\n")
			a.Lines = strings.Count(strings.TrimSuffix(content, "\n"), "\n") + 1
			a.Note = note
		}
		b.WriteString("</file>\n")
		report = append(report, a)
	}
	if b.Len() == 0 {
		return text, report
	}
	return b.String() + text, report
}

// SplitAttached undoes Attach for display: it returns what was typed and
// how many <file> blocks came before it. It reads the blocks Attach writes
// (and pi's, which have the same shape); a message that does not start
// with a whole one is returned as it is.
func SplitAttached(msg string) (typed string, files int) {
	rest := msg
	for strings.HasPrefix(rest, "<file name=\"") {
		name, err := strconv.QuotedPrefix(rest[len("<file name="):])
		if err != nil {
			break
		}
		body := rest[len("<file name=")+len(name):]
		if !strings.HasPrefix(body, ">") {
			break
		}
		end := strings.Index(body, "</file>")
		if end < 0 {
			break
		}
		rest = strings.TrimPrefix(body[end+len("</file>"):], "\n")
		files++
	}
	if files == 0 {
		return msg, 0
	}
	return rest, files
}

// References returns the @paths of text in order: an "@" at the start or
// after white space, a quote, "=" or "(", then either a quoted path or the
// characters up to the next white space.
func References(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && !strings.ContainsRune(" \t\n\r\"'=(", rune(text[i-1]))) {
			continue
		}
		rest := text[i+1:]
		if strings.HasPrefix(rest, `"`) {
			if end := strings.IndexAny(rest[1:], "\"\n"); end >= 0 && rest[1+end] == '"' {
				out = append(out, rest[1:1+end])
				i += end + 2
			}
			continue
		}
		end := strings.IndexAny(rest, " \t\n\r")
		if end < 0 {
			end = len(rest)
		}
		if end > 0 {
			out = append(out, rest[:end])
		}
		i += end
	}
	return out
}

// projectPath turns a reference into a path relative to root, or says it
// is not one: empty, outside root, or naming ".git". Trailing sentence
// punctuation ("see @main.go.") is dropped when the path without it
// exists.
func projectPath(root, ref string) (string, bool) {
	try := func(p string) (string, bool) {
		if p == "" || strings.ContainsRune(p, 0) {
			return "", false
		}
		if filepath.IsAbs(p) {
			rel, err := filepath.Rel(root, filepath.Clean(p))
			if err != nil || !fsutil.Within(root, filepath.Clean(p)) {
				return "", false
			}
			p = rel
		}
		p = filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
		if p == "." || p == ".." || strings.HasPrefix(p, "../") || !cleanPath([]byte(p)) {
			return "", false
		}
		return p, true
	}
	if p, ok := try(ref); ok && exists(root, p) {
		return p, true
	}
	trimmed := strings.TrimRight(ref, ".,;:!?)]}'\"")
	if trimmed != ref {
		if p, ok := try(trimmed); ok && exists(root, p) {
			return p, true
		}
	}
	return "", false
}

// exists is a cheap Lstat to tell a path from a word; the real open goes
// through the os.Root.
func exists(root, rel string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil
}

// readAttachment reads one file for attaching. ok is false when rel is not
// a regular file of the project (then it is left as text).
func readAttachment(r *os.Root, rel string, limit int64) (content, note string, ok bool) {
	f, err := r.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|fsutil.ONonblock, 0)
	if err != nil {
		return "", "", false
	}
	f, fi, err := fsutil.CheckRegular(f)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	if fi.Size() > limit {
		return "", fmt.Sprintf("not attached: %s, over the %s limit; the agent can read it with its read tool", size(fi.Size()), size(limit)), true
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return "", "not attached: " + fsutil.PlainError(err).Error(), true
	}
	if int64(len(data)) > limit {
		return "", fmt.Sprintf("not attached: it grew over the %s limit while read", size(limit)), true
	}
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return "", fmt.Sprintf("not attached: a binary file of %s", size(int64(len(data)))), true
	}
	if !utf8.Valid(data) {
		return strings.ToValidUTF8(string(data), "\uFFFD"), "bytes that are not UTF-8 were replaced with U+FFFD", true
	}
	return string(data), "", true
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// neutralizeFileTags defuses, besides pi-tui's frame markers, every tag
// in s that opens or closes a <file> element ("</file>", "< / FILE",
// "<file name=…>"), by writing its "<" as "&lt;": the content can then
// never end its own element. The rest is kept as it was.
func neutralizeFileTags(s string) string {
	s = safetext.Neutralize(s)
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' || !fileTag(s[i+1:]) {
			continue
		}
		if done == 0 {
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[done:i])
		b.WriteString("&lt;")
		done = i + 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// fileTag reports whether rest (what follows a "<") is a file tag: white
// space, an optional "/", white space, "file" in any case, then anything
// but a letter, digit, "-" or "_".
func fileTag(rest string) bool {
	rest = strings.TrimLeft(rest, " \t\r\n")
	rest = strings.TrimPrefix(rest, "/")
	rest = strings.TrimLeft(rest, " \t\r\n")
	if len(rest) < 4 || !strings.EqualFold(rest[:4], "file") {
		return false
	}
	if len(rest) == 4 {
		return true
	}
	c := rest[4]
	return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_')
}
