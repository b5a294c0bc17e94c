package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/piedit"
	"github.com/pi-tui/pi-tui/internal/fsutil"
	"github.com/pi-tui/pi-tui/ui/common"
)

// previewLimit bounds how much of the current file a write's diff reads.
const previewLimit = 1 << 20

// contextLines is how many unchanged lines surround each change.
const contextLines = 3

// diffLine is one line of a preview: a change, a line of context, a hunk
// header or a note about the preview itself.
type diffLine struct {
	kind     byte // '+', '-', ' ' (context), '@' (hunk header), '!' (note)
	old, new int  // line numbers in the current and the new file; 0: none
	text     string
}

// preview is what a write or edit would change.
type preview struct {
	lines          []diffLine
	added, removed int
	// refused: the tool will refuse the call as it stands (the lines say
	// why), so it changes nothing.
	refused bool
}

func (p *preview) note(format string, args ...any) {
	p.lines = append(p.lines, diffLine{kind: '!', text: fmt.Sprintf(format, args...)})
}

// whole adds content as new lines numbered from 1: the file is created,
// or the current one could not be compared.
func (p *preview) whole(content string) {
	for i, l := range splitLines(content) {
		p.lines = append(p.lines, diffLine{kind: '+', new: i + 1, text: l})
		p.added++
	}
}

// width is the digits of the largest line number.
func (p preview) width() int {
	n := 0
	for _, l := range p.lines {
		n = max(n, l.old, l.new)
	}
	return len(fmt.Sprint(n))
}

// String draws the preview as plain text, as the dialog shows it without
// colour: line numbers (current, new), a bar, the mark and the line.
func (p preview) String() string {
	w := p.width()
	var b strings.Builder
	for _, l := range p.lines {
		switch l.kind {
		case '!', '@':
			b.WriteString(l.text + "\n")
		default:
			fmt.Fprintf(&b, "%s │ %c %s\n", gutterOf(l, w), l.kind, l.text)
		}
	}
	return b.String()
}

// gutterOf is a line's numbers, blank where a side has none.
func gutterOf(l diffLine, w int) string {
	num := func(n int) string {
		if n == 0 {
			return strings.Repeat(" ", w)
		}
		return fmt.Sprintf("%*d", w, n)
	}
	return num(l.old) + " " + num(l.new)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// unified is the change from old to new in unified form with line
// numbers and three lines of context (go-udiff).
func unified(old, new string) preview {
	var p preview
	d, err := udiff.ToUnifiedDiff("current", "new", old, udiff.Strings(old, new), contextLines)
	if err != nil {
		p.note("(the change cannot be shown as a diff: %v; the new content follows whole)", err)
		p.whole(new)
		return p
	}
	if len(d.Hunks) == 0 {
		p.note("(no change)")
		return p
	}
	for _, h := range d.Hunks {
		oldN, newN := h.FromLine, h.ToLine
		var oldC, newC int
		for _, l := range h.Lines {
			if l.Kind != udiff.Insert {
				oldC++
			}
			if l.Kind != udiff.Delete {
				newC++
			}
		}
		p.lines = append(p.lines, diffLine{kind: '@', text: fmt.Sprintf("@@ -%d,%d +%d,%d @@", oldN, oldC, newN, newC)})
		for _, l := range h.Lines {
			text := strings.TrimSuffix(l.Content, "\n")
			switch l.Kind {
			case udiff.Delete:
				p.lines = append(p.lines, diffLine{kind: '-', old: oldN, text: text})
				oldN++
				p.removed++
			case udiff.Insert:
				p.lines = append(p.lines, diffLine{kind: '+', new: newN, text: text})
				newN++
				p.added++
			default:
				p.lines = append(p.lines, diffLine{kind: ' ', old: oldN, new: newN, text: text})
				oldN++
				newN++
			}
		}
	}
	return p
}

// diffFor shows what a write or edit would change: every changed line,
// as the user approves all of it, with three lines of context. It runs on
// the bridge's goroutine (it reads the file), never in Update, and reads
// through confine.ReadPreview: bounded, confined to the root, and never
// blocking on a FIFO a hostile repository put where the file should be.
func diffFor(root string, req events.Approval) preview {
	var p preview
	args := map[string]any{}
	json.Unmarshal(req.Args, &args)
	switch req.Tool {
	case "edit", "write":
	default:
		return p
	}
	root, in := req.In(root) // another folder's file is read in its folder
	path, err := confine.Path(root, in)
	if err != nil {
		p.note("(%v: the tool will refuse it)", err)
		return p
	}
	// One open, through the root, with the type checked on it: no stat
	// first (check-then-open), and never a wait on a FIFO.
	old, err := confine.ReadPreview(root, path, previewLimit+1)
	var notRegular *fsutil.NotRegularError
	if _, pi := args["edits"]; req.Tool == "edit" && pi {
		return piEditDiff(req, old, err)
	}
	if req.Tool == "edit" {
		oldText, _ := args["oldText"].(string)
		newText, _ := args["newText"].(string)
		if err == nil && len(old) <= previewLimit && strings.Count(string(old), oldText) == 1 && oldText != "" {
			return unified(string(old), strings.Replace(string(old), oldText, newText, 1))
		}
		// The tool will refuse the edit (no unique match) or the file
		// cannot be compared: show the two texts as given.
		p.note("(the text to replace is not found once in the file as it is now; the texts as given)")
		for _, l := range splitLines(oldText) {
			p.lines = append(p.lines, diffLine{kind: '-', text: l})
			p.removed++
		}
		for _, l := range splitLines(newText) {
			p.lines = append(p.lines, diffLine{kind: '+', text: l})
			p.added++
		}
		return p
	}
	content, _ := args["content"].(string)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.note("(new file, %s)", common.Plural(len(content), "byte"))
	case errors.As(err, &notRegular):
		p.note("(not a regular file)")
	case err != nil:
		p.note("(the current file cannot be read: %v; the new content follows)", err)
	case len(old) > previewLimit:
		p.note("(the current file is over 1 MiB: not compared; the new content follows whole)")
	default:
		return unified(string(old), content)
	}
	p.whole(content)
	return p
}

// piEditDiff shows pi 1.6's edit (path, edits[]) as pi will apply it
// (piedit.Apply: every edit matched in the file as it is now): the
// exact diff, or pi's own words for an edit it will refuse (not found,
// not unique, overlapping, empty, no change), then each edit as given.
func piEditDiff(req events.Approval, old []byte, readErr error) preview {
	var p preview
	_, edits, err := piedit.Input(req.Args)
	var notRegular *fsutil.NotRegularError
	switch {
	case err != nil:
	case errors.Is(readErr, fs.ErrNotExist):
		err = fmt.Errorf("the file does not exist")
	case errors.As(readErr, &notRegular):
		err = fmt.Errorf("it is not a regular file")
	case readErr != nil:
		err = fmt.Errorf("the file cannot be read: %v", readErr)
	case len(old) > previewLimit:
		p.note("(the file is over 1 MiB: not compared; the edits as given)")
	default:
		var res piedit.Result
		// pi decodes the file as UTF-8, an invalid byte becoming U+FFFD.
		if res, err = piedit.Apply(string([]rune(string(old))), edits, req.Path); err == nil {
			if len(edits) > 1 {
				p.note("(%d edits, each matched in the file as it is now)", len(edits))
			}
			if res.Fuzzy {
				p.note("(an edit matched only with quotes, dashes and line-end spaces folded: pi rewrites the lines it touches as shown)")
			}
			d := unified(res.Before, res.After)
			d.lines = append(p.lines, d.lines...)
			return d
		}
	}
	if err != nil {
		p.note("pi will refuse this edit: %v", err)
	}
	p.refused = err != nil
	for i, e := range edits {
		p.note("edits[%d] as given:", i)
		for _, l := range splitLines(e.OldText) {
			p.lines = append(p.lines, diffLine{kind: '-', text: l})
		}
		for _, l := range splitLines(e.NewText) {
			p.lines = append(p.lines, diffLine{kind: '+', text: l})
		}
	}
	return p
}
