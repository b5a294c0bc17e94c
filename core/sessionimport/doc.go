// Package sessionimport brings the sessions of other coding agents (Claude
// Code, Codex, opencode) into pi's own session files, so pi and pi-tui list,
// open and continue them like any session of theirs.
//
// Each source is read where its agent keeps it, and never written: Claude
// Code's ~/.claude/projects/<slug>/<uuid>.jsonl, Codex's
// ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl (both line shapes it has
// written), and opencode's SQLite database (opened read-only) or its older
// storage/ folder of JSON files. Line files are read as a stream with a
// bound on one line's length, and one session is converted at a time, so
// memory follows the largest session, never the sum.
//
// A session goes to the project whose root holds the folder it was run in,
// as a pi version 3 file in pi's session folder for that project. Its id is
// derived from the source and the source's id, so a second import finds the
// file it wrote before by name; the file ends with a custom entry
// (customType "pi-tui.import", never sent to the model) that records how far
// the source was read. A second import reads nothing more of a source that
// has not changed, and appends only what is new to one that has.
package sessionimport
