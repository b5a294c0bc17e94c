package checkpoints

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
)

// maxDiffBytes bounds the sides a line count or a diff is computed for:
// past it the count is left at 0 and the diff says why (the diff's cost
// grows with the product of the changes).
const maxDiffBytes = 1 << 20

// content reads one side of a change: nil for "none", ok false when it
// was not kept or cannot be read.
func (s *Store) content(kind byte, hash string, kept bool) ([]byte, bool) {
	if kind == kindNone {
		return nil, true
	}
	if !kept {
		return nil, false
	}
	b, err := s.getObject(hash, s.lim.MaxFileBytes)
	return b, err == nil
}

func binary(b []byte) bool {
	head := b[:min(len(b), 8000)]
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(b)
}

// countLines counts the lines a change added and removed (0, 0 for a
// binary file or one whose content is not kept).
func (s *Store) countLines(b, a fileState) (added, removed int, bin bool) {
	if b.kind == kindLink || a.kind == kindLink {
		return 0, 0, false
	}
	old, ok1 := s.content(b.kind, b.hash, b.kept)
	cur, ok2 := s.content(a.kind, a.hash, a.kept)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	if binary(old) || binary(cur) {
		return 0, 0, true
	}
	if len(old)+len(cur) > maxDiffBytes {
		return 0, 0, false
	}
	if b.kind == kindNone {
		return lineCount(string(cur)), 0, false
	}
	if a.kind == kindNone {
		return 0, lineCount(string(old)), false
	}
	d, err := udiff.ToUnifiedDiff("a", "b", string(old), udiff.Strings(string(old), string(cur)), 0)
	if err != nil {
		return 0, 0, false
	}
	for _, h := range d.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				added++
			case udiff.Delete:
				removed++
			}
		}
	}
	return added, removed, false
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// diff draws change n of session id in git's unified form.
func (s *Store) diff(ctx context.Context, id string, n int) (string, error) {
	texts, err := s.diffs(ctx, id, []int{n})
	if err != nil {
		return "", err
	}
	return texts[0], nil
}

// diffs draws changes ns of session id, reading its journal once (a
// call's card shows the diffs of all its files).
func (s *Store) diffs(ctx context.Context, id string, ns []int) ([]string, error) {
	recs, err := readJournal(s.journalFor(id).path)
	if err != nil {
		return nil, err
	}
	byN := map[int]record{}
	for _, r := range recs {
		if r.Type == "change" && r.Before != nil && r.After != nil {
			if _, dup := byN[r.N]; !dup {
				byN[r.N] = r
			}
		}
	}
	out := make([]string, len(ns))
	for i, n := range ns {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, ok := byN[n]
		if !ok {
			return nil, fmt.Errorf("session %s has no change %d", id, n)
		}
		out[i] = s.diffOf(r)
	}
	return out, nil
}

func kindByte(v *version) byte {
	switch v.Kind {
	case "file":
		return kindFile
	case "link":
		return kindLink
	case "none":
		return kindNone
	}
	return kindOdd
}

func (s *Store) diffOf(r record) string {
	name := r.shown()
	oldName, newName := "a/"+name, "b/"+name
	if r.Before.Kind == "none" {
		oldName = "/dev/null"
	}
	if r.After.Kind == "none" {
		newName = "/dev/null"
	}
	head := fmt.Sprintf("diff --pi-tui a/%s b/%s\n", name, name)
	if r.Before.Kind == "link" || r.After.Kind == "link" {
		side := func(v *version) string {
			if v.Kind == "none" {
				return "(nothing)"
			}
			b, ok := s.content(kindByte(v), v.Hash, v.Kept)
			if v.Kind != "link" {
				return fmt.Sprintf("a %s of %d bytes", v.Kind, v.Size)
			}
			if !ok {
				return "a link (its target was not kept)"
			}
			return "a link to " + string(b)
		}
		return head + fmt.Sprintf("%s: was %s, is %s\n", name, side(r.Before), side(r.After))
	}
	old, ok1 := s.content(kindByte(r.Before), r.Before.Hash, r.Before.Kept)
	cur, ok2 := s.content(kindByte(r.After), r.After.Hash, r.After.Kept)
	switch {
	case !ok1 || !ok2:
		return head + fmt.Sprintf("%s: its content was not kept (over %s, or the session's checkpoints were full); sizes %d → %d bytes\n",
			name, sizeText(s.lim.MaxFileBytes), r.Before.Size, r.After.Size)
	case binary(old) || binary(cur):
		return head + fmt.Sprintf("Binary file %s: %d → %d bytes\n", name, r.Before.Size, r.After.Size)
	case len(old)+len(cur) > maxDiffBytes:
		return head + fmt.Sprintf("%s: too large to show as a diff (%d → %d bytes)\n", name, r.Before.Size, r.After.Size)
	}
	var mode string
	if r.Before.Kind == "file" && r.After.Kind == "file" && r.Before.Mode&0o111 != r.After.Mode&0o111 {
		mode = fmt.Sprintf("old mode %o\nnew mode %o\n", 0o100000|r.Before.Mode, 0o100000|r.After.Mode)
	}
	text := udiff.Unified(oldName, newName, string(old), string(cur))
	if text == "" && mode == "" {
		return head + "(no change in content)\n"
	}
	return head + mode + text
}
