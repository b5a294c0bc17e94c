package palette

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/filesearch"
	"github.com/pi-tui/pi-tui/core/fuzzy"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/sessionlist"
)

// Kind is what an entry of the palette is.
type Kind int

// The kinds, in the order the palette lists them before anything is typed.
const (
	KindSession Kind = iota
	KindProject
	KindCommand
	KindSetting
)

// String is the kind's word, shown on its rows and searched with them
// ("setting perm" finds the permission mode).
func (k Kind) String() string {
	return [...]string{"session", "project", "command", "setting"}[k]
}

// firstBytes bounds how much of a session's first message is searched:
// as much as a row can show and a little more. A first message may be a
// kilobyte of pasted text, and 20,000 of them would make each keystroke
// scan megabytes.
const firstBytes = 240

// entry is one row the palette can show and go to.
type entry struct {
	id            string // kind and what it names, to keep the cursor on it across loads
	kind          Kind
	title, detail string // as shown: one line each, controls made visible
	at            int    // the Item's index, or the project's or session's in the index
	project       int    // a session's project, an index into index.projects
	// path is true when detail is a path (a project's folder), which a
	// narrow row shortens in its middle (common.ShortPath).
	path bool
	// note follows the detail: a project's state (" · folder missing"),
	// a session's time. A narrow row shortens a path to keep a project's
	// note, and leaves a session's time out before cutting its project.
	note string
}

// index is everything the palette searches, with the texts prepared for
// the matcher. It is built off the UI goroutine, in the load commands;
// a keystroke only matches against it.
type index struct {
	entries  []entry
	texts    *fuzzy.Texts
	projects []registry.Project
	sessions []sessions.Summary
}

// build lays out the entries, sessions first (most recent first), then
// projects, then the items (commands, settings) in the order given. Each
// entry's text is its kind, what places it (a session's project, a
// project's folder) and then its base, the part that names it (a
// session's name and first message, a project's name, a command's name
// and description): the matcher ranks a hit in the base first, as `@`
// ranks a hit in a file's base name.
func build(items []Item, ps []registry.Project, ss []sessions.Summary, home string) *index {
	x := &index{projects: ps, sessions: ss}
	n := len(items) + len(ps) + len(ss)
	x.entries = make([]entry, 0, n)
	texts := make([]string, 0, n)
	base := make([]int32, 0, n)
	add := func(e entry, context, name string) {
		x.entries = append(x.entries, e)
		head := e.kind.String() + " " + context
		texts = append(texts, head+name)
		base = append(base, int32(len(head)))
	}
	byID := make(map[string]int, len(ps))
	for i, p := range ps {
		byID[p.ID] = i
	}
	for i, s := range ss {
		pi, ok := byID[s.ProjectID]
		if !ok {
			continue
		}
		p := ps[pi]
		title := sessionlist.Title(s.Title, s.FirstMessage)
		if title == "" {
			title = "(untitled)"
		}
		typed, _ := filesearch.SplitAttached(s.FirstMessage) // what was typed, not the files attached
		first := flat(typed)
		name := first
		if s.Title != "" {
			name = flat(s.Title) + " " + first
		}
		when := " · " + time.UnixMilli(s.UpdatedAt).Local().Format("2006-01-02 15:04")
		add(entry{id: "s" + s.ID, kind: KindSession, title: title, detail: common.VisibleLine(p.Name), note: when, at: i, project: pi},
			flat(p.Name)+"/", name)
	}
	for i, p := range ps {
		root := paths.Tilde(p.Root, home)
		note := ""
		switch {
		case p.Missing:
			note = " · folder missing"
		case p.Archived:
			note = " · archived"
		}
		// A project is found by any of its folders (ADR 0085): their
		// paths and names place it, as its root does.
		where := flat(root) + " "
		if n := len(p.Folders); n > 1 {
			more := "+1 folder"
			if n > 2 {
				more = fmt.Sprintf("+%d folders", n-1)
			}
			note = " · " + more + note
			for _, f := range p.Folders[1:] {
				where += flat(paths.Tilde(f.Path, home)) + " " + flat(f.Name) + " "
			}
		}
		add(entry{id: "p" + p.ID, kind: KindProject, title: common.VisibleLine(p.Name), detail: common.VisibleLine(root), path: true, note: note, at: i},
			where, flat(p.Name))
	}
	for i, it := range items {
		name := flat(it.Title)
		if it.Detail != "" {
			name += " " + flat(it.Detail)
		}
		add(entry{id: "i" + it.Kind.String() + it.Title + "\x00" + it.Detail, kind: it.Kind, title: common.VisibleLine(it.Title),
			detail: common.VisibleLine(it.Detail), path: it.Path, at: i}, "", name)
	}
	x.texts = fuzzy.Prepare(texts, base)
	return x
}

// flat is text as searched: one line (white space runs one space), at
// most firstBytes, cut at a character.
func flat(s string) string {
	if len(s) > firstBytes {
		cut := firstBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return strings.Join(strings.Fields(s), " ")
}
