// Package checkpoints keeps the evidence of what each file-changing tool
// call did to a project, so that every change can be reviewed and undone
// (docs/adr/0051-checkpoints.md).
//
// The evidence lives in pi-tui's data dir, never in the user's
// repository, its index or its refs:
//
//	D/checkpoints/objects/ab/cdef…   file contents by SHA-256, compressed, shared
//	D/checkpoints/roots/<key>/       a project's stat cache: each file's stat and hash
//	D/checkpoints/sessions/<id>/     a session's journal: its changes, undos and redos
//
// A tool call is bracketed by Recorder.Before and Mark.After. A call that
// names the files it can change (write, edit) looks at those files only.
// Any other (bash, tools extensions add) walks the project: a file whose
// stat (size, mtime, ctime, inode, mode) is what the stat cache holds is
// taken as unchanged, so a walk reads only what changed. Before walks
// too, so what changed between calls (the user's own edits) is taken in
// as it is and never put down to the agent.
//
// Undo and redo are guarded: each file must still be exactly as the agent
// (or the last undo) left it, by hash, or nothing is written.
package checkpoints
