// Package instructions resolves the instruction chain that applies to a path
// inside a project: the global agent instructions, then every directory from
// the project root down to the path's directory, outer first.
//
// The package is the single owner of instruction discovery in pi-tui. The host
// uses it to build the root chain for a runtime's system prompt (ResolveRoot)
// and to answer the runtime's preflight requests for a file-path tool
// (ResolveTarget); the CLI prints the same Chain as `pi-tui instructions
// --json`, and the UI shows it in the projects view. Keeping one resolver
// means the model, the user and the tests all see the same chain.
//
// The rules come from DESIGN.md §3 and ADR 0005 (docs/adr). In short:
//
//   - Per directory the first qualifying candidate wins: AGENTS.override.md,
//     AGENTS.md, AGENTS.MD, CLAUDE.md, CLAUDE.MD, .claude/CLAUDE.md. A
//     candidate qualifies when its canonical path stays inside the project
//     root (global files: inside the agent directory), it is a regular file
//     after resolving links, it is readable and it is not blank. Every
//     existing candidate that fails is reported as a Skip with a reason;
//     nothing is dropped silently.
//   - The current model's provider files (CLAUDE.md, CODEX.md, GEMINI.md or
//     the agent-guidance.json mapping) follow the winner of each directory,
//     unless the same file or the same trimmed content is already loaded.
//   - The whole chain shares a 32 KiB budget max-min fairly; a cut source
//     carries a one-line note so the model knows to read the rest.
//   - Reads are bounded, so a 1 GB file costs no more than a 32 KiB one, and
//     FIFOs, sockets and devices are never opened.
//
// A Resolver that is reused remembers which candidate names were absent
// from directories that have not changed since (same device, inode, mtime
// and ctime, and both timestamps more than two seconds old, so that a change
// in the same clock tick cannot go unnoticed), and does not probe them again.
// Names that exist are always checked and read again. See dirCache.
//
// A repository is untrusted input, so rendering (Render) gives it no say
// over the section's structure: each source is named by its label quoted
// as a string literal (a folder name holding a newline or "</instructions>"
// cannot start a line or close a block), and its text, verbatim, sits in an
// <instruction-file> element whose marker-like tags are defused, so a file
// cannot end its element and pass text off as another source. Skip
// reasons, warnings and truncation notes quote the labels and paths they
// name. Chain's fields (Label, Path, Content) keep the raw values. The
// rules live in internal/safetext, shared with core/toolpolicy's tool-result
// blocks.
//
// Content is normalised before it is measured: a UTF-8 byte order mark is
// removed, CRLF becomes LF, each run of invalid UTF-8 becomes U+FFFD and
// surrounding white space is trimmed. Budgets count the bytes the model
// receives, not the bytes on disk.
package instructions
