// Package piedit is pi 1.6's edit tool as pi applies it: its arguments
// and what its edits make of a file. pi runs the edit itself; the
// approval dialog uses this to show the exact change a person allows, so
// it belongs to neither engine's package.
package piedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// pi 1.6's edit, as pi applies it, so an approval shows the change the
// user allows and not another (docs/adr/0065-tools-as-pi-defines-them.md).
// Its input is {"path", "edits": [{"oldText", "newText"}, …]}: every
// oldText is matched in the original file (not one after another), must
// be found, once, and no two may overlap; the new file is the original
// with each matched span replaced. When an oldText is found only once
// whitespace at line ends, Unicode quotes, dashes and spaces are folded
// (pi's fuzzy match), the lines it touches are replaced by their folded
// form. The file's line endings and BOM are kept; the change is compared
// with LF line ends, as pi's own diff shows it.

// Edit is one of pi's edits[].
type Edit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

// Input reads an edit call's arguments as pi 1.6 prepares them: an
// edits given as a JSON string or as one object is taken as the list, and
// a legacy top-level oldText/newText pair is added to it. An input with
// no edits is pi's error.
func Input(args json.RawMessage) (path string, edits []Edit, err error) {
	var in struct {
		Path             string
		Edits            json.RawMessage
		OldText, NewText *string
	}
	json.Unmarshal(args, &in)
	raw := bytes.TrimSpace(in.Edits)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = bytes.TrimSpace([]byte(s)) // pi parses a string it is given
	}
	switch {
	case len(raw) > 0 && raw[0] == '[':
		json.Unmarshal(raw, &edits)
	case len(raw) > 0 && raw[0] == '{':
		var one struct{ OldText, NewText *string }
		if json.Unmarshal(raw, &one) == nil && one.OldText != nil && one.NewText != nil {
			edits = []Edit{{OldText: *one.OldText, NewText: *one.NewText}}
		}
	}
	if in.OldText != nil && in.NewText != nil {
		edits = append(edits, Edit{OldText: *in.OldText, NewText: *in.NewText})
	}
	if len(edits) == 0 {
		return in.Path, nil, errorf("Edit tool input is invalid. edits must contain at least one replacement.")
	}
	return in.Path, edits, nil
}

// Error is an edit pi refuses, in pi's words (what the model is
// told).
type Error struct{ Text string }

func (e *Error) Error() string { return e.Text }

func errorf(format string, args ...any) error {
	return &Error{Text: fmt.Sprintf(format, args...)}
}

// Result is what pi's edit makes of a file: Before and After with
// LF line ends (what pi's diff compares), and the replacements made in
// Before, in order.
type Result struct {
	Before, After string
	Spans         []Span
	// Fuzzy: an edit matched only with whitespace, quotes and dashes
	// folded, and pi rewrote the lines it touched in that form.
	Fuzzy bool
}

// Span is one replacement in the original text: at Index, Length
// bytes replaced by NewText. Edits lists the edits[] indexes it carries
// (several when pi's fuzzy match widened them to the same lines).
type Span struct {
	Index, Length int
	NewText       string
	Edits         []int
}

// Apply applies edits to a file's content as pi 1.6's edit does,
// or returns the error pi would give (its text, naming path), so the
// approval can say it before the user answers.
func Apply(content string, edits []Edit, path string) (Result, error) {
	content = strings.TrimPrefix(content, "\uFEFF")
	base := toLF(content)
	norm := make([]Edit, len(edits))
	for i, e := range edits {
		norm[i] = Edit{OldText: toLF(e.OldText), NewText: toLF(e.NewText)}
	}
	total := len(norm)
	for i, e := range norm {
		if e.OldText == "" {
			if total == 1 {
				return Result{}, errorf("oldText must not be empty in %s.", path)
			}
			return Result{}, errorf("edits[%d].oldText must not be empty in %s.", i, path)
		}
	}
	fuzzy := false
	for _, e := range norm {
		if m := findText(base, e.OldText); m.fuzzy {
			fuzzy = true
		}
	}
	against := base
	if fuzzy {
		against = foldForMatch(base)
	}
	var spans []Span
	for i, e := range norm {
		m := findText(against, e.OldText)
		if !m.found {
			if total == 1 {
				return Result{}, errorf("Could not find the exact text in %s. The old text must match exactly including all whitespace and newlines.", path)
			}
			return Result{}, errorf("Could not find edits[%d] in %s. The oldText must match exactly including all whitespace and newlines.", i, path)
		}
		if n := occurrences(against, e.OldText); n > 1 {
			if total == 1 {
				return Result{}, errorf("Found %d occurrences of the text in %s. The text must be unique. Please provide more context to make it unique.", n, path)
			}
			return Result{}, errorf("Found %d occurrences of edits[%d] in %s. Each oldText must be unique. Please provide more context to make it unique.", n, i, path)
		}
		spans = append(spans, Span{Index: m.index, Length: m.length, NewText: e.NewText, Edits: []int{i}})
	}
	slices.SortStableFunc(spans, func(a, b Span) int { return a.Index - b.Index })
	for i := 1; i < len(spans); i++ {
		p, c := spans[i-1], spans[i]
		if p.Index+p.Length > c.Index {
			return Result{}, errorf("edits[%d] and edits[%d] overlap in %s. Merge them into one edit or target disjoint regions.", p.Edits[0], c.Edits[0], path)
		}
	}
	if fuzzy {
		var err error
		if spans, err = widenToLines(base, against, spans); err != nil {
			return Result{}, err
		}
	}
	after := replaceSpans(base, spans, 0)
	if after == base {
		if total == 1 {
			return Result{}, errorf("No changes made to %s. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.", path)
		}
		return Result{}, errorf("No changes made to %s. The replacements produced identical content.", path)
	}
	return Result{Before: base, After: after, Spans: spans, Fuzzy: fuzzy}, nil
}

// toLF is pi's normalizeToLF: CRLF, then a lone CR, become LF.
func toLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// foldForMatch is pi's normalizeForFuzzyMatch: NFKC, trailing whitespace
// of every line dropped, typographic quotes, dashes and spaces made
// plain.
func foldForMatch(s string) string {
	lines := strings.Split(norm.NFKC.String(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, jsSpace)
	}
	return fuzzyPlain.Replace(strings.Join(lines, "\n"))
}

var fuzzyPlain = func() *strings.Replacer {
	var pairs []string
	for _, r := range "\u2018\u2019\u201A\u201B" {
		pairs = append(pairs, string(r), "'")
	}
	for _, r := range "\u201C\u201D\u201E\u201F" {
		pairs = append(pairs, string(r), `"`)
	}
	for _, r := range "\u2010\u2011\u2012\u2013\u2014\u2015\u2212" {
		pairs = append(pairs, string(r), "-")
	}
	for _, r := range "\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000" {
		pairs = append(pairs, string(r), " ")
	}
	return strings.NewReplacer(pairs...)
}()

// jsSpace is what JavaScript's trimEnd removes: its white space and line
// terminators.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', '\n', '\r', ' ', '\u00A0', '\uFEFF', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

type textMatch struct {
	found, fuzzy  bool
	index, length int
}

// findText is pi's fuzzyFindText: the first exact match, else the first
// match of the folded text in the folded content (its index in that).
func findText(content, old string) textMatch {
	if i := strings.Index(content, old); i >= 0 {
		return textMatch{found: true, index: i, length: len(old)}
	}
	fc, fo := foldForMatch(content), foldForMatch(old)
	if i := strings.Index(fc, fo); i >= 0 {
		return textMatch{found: true, fuzzy: true, index: i, length: len(fo)}
	}
	return textMatch{}
}

// occurrences is pi's countOccurrences: the folded text's non-overlapping
// matches in the folded content (JavaScript's split, an empty text
// counting between UTF-16 units).
func occurrences(content, old string) int {
	fc, fo := foldForMatch(content), foldForMatch(old)
	if fo == "" {
		return len(utf16.Encode([]rune(fc))) - 1
	}
	return strings.Count(fc, fo)
}

// replaceSpans applies spans (sorted, disjoint; indexes offset into s)
// from the last to the first.
func replaceSpans(s string, spans []Span, offset int) string {
	for i := len(spans) - 1; i >= 0; i-- {
		sp := spans[i]
		at := sp.Index - offset
		s = s[:at] + sp.NewText + s[at+sp.Length:]
	}
	return s
}

type lineSpan struct{ start, end int }

// lineSpans are content's lines with their LF ends, as pi splits them.
func lineSpans(s string) []lineSpan {
	var out []lineSpan
	for at := 0; at < len(s); {
		end := len(s)
		if i := strings.IndexByte(s[at:], '\n'); i >= 0 {
			end = at + i + 1
		}
		out = append(out, lineSpan{at, end})
		at = end
	}
	return out
}

// widenToLines is pi's widenReplacementsToLines: spans matched in the
// folded text become whole-line replacements of the original, the lines
// taken in their folded form with the edits applied; spans on shared
// lines make one.
func widenToLines(original, folded string, spans []Span) ([]Span, error) {
	ol, fl := lineSpans(original), lineSpans(folded)
	if len(ol) != len(fl) {
		return nil, errorf("Cannot preserve unchanged lines because the base content has a different line count.")
	}
	type group struct {
		start, end int
		spans      []Span
	}
	var groups []*group
	for _, sp := range spans {
		first := -1
		for i, l := range fl {
			if sp.Index >= l.start && sp.Index < l.end {
				first = i
				break
			}
		}
		if first < 0 {
			return nil, errorf("Replacement range is outside the base content.")
		}
		last := first
		for last < len(fl) && fl[last].end < sp.Index+sp.Length {
			last++
		}
		if last >= len(fl) {
			return nil, errorf("Replacement range is outside the base content.")
		}
		if n := len(groups); n > 0 && first < groups[n-1].end {
			g := groups[n-1]
			g.end = max(g.end, last+1)
			g.spans = append(g.spans, sp)
			continue
		}
		groups = append(groups, &group{start: first, end: last + 1, spans: []Span{sp}})
	}
	out := make([]Span, 0, len(groups))
	for _, g := range groups {
		fs, fe := fl[g.start].start, fl[g.end-1].end
		os := ol[g.start].start
		w := Span{Index: os, Length: ol[g.end-1].end - os, NewText: replaceSpans(folded[fs:fe], g.spans, fs)}
		for _, sp := range g.spans {
			w.Edits = append(w.Edits, sp.Edits...)
		}
		out = append(out, w)
	}
	return out, nil
}
