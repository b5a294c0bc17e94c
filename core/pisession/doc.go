// Package pisession reads and writes pi's own session files (format
// version 3, JSON lines), so that pi and pi-tui share sessions both ways.
//
// A file is a header line ({"type":"session","version":3,"id",…}) and one
// entry per line. Entries form a tree through parentId; the leaf is the
// last entry in the file (pi keeps no other pointer) and the active branch
// is the walk from the leaf back to a root. Context builds what the model
// sees of that branch, compactions and summaries included, exactly as pi
// does.
//
// # Keeping what pi-tui does not understand
//
// Every entry keeps its line's bytes (Entry.Raw); only the members the tree
// needs are decoded when a file is opened, and typed views (Entry.Message,
// Entry.Compaction, …) decode the rest on demand. An append writes only its
// own new line, so unknown entry types and members are never touched; the
// one rewrite (upgrading a version 1 or 2 file) edits lines member by
// member, and decoded messages keep unknown members in Extra.
//
// # Sharing a file
//
// pi, other pi-tui processes and this one may append to the same file.
// Each append takes an advisory lock (flock; pi takes none), reads the
// lines others added since it last looked (returned as Appended.Arrived and
// by Refresh), then writes its line with one write to an O_APPEND
// descriptor, so lines never interleave. A last line left half written by
// a crash gets a newline before the next line, so it stays a separate,
// skipped line; a line another writer is still writing is given a few
// milliseconds to finish first.
//
// # Moving on the tree
//
// Branch moves the leaf. Because pi reopens a file at its last entry,
// Branch also appends a custom entry (customType "pi-tui.leaf", never sent
// to the model) under the chosen entry, unless that entry already is the
// last one; pi then reopens on the same branch, and pi-tui reads such a
// trailing marker as "the leaf is its parent".
//
// # Creating
//
// Create makes the file at once, or, with Deferred, keeps everything in
// memory until Flush or the first assistant message (pi's rule) and then
// creates it with O_EXCL. WriteSession writes a whole session in one go
// (for moving sessions from another store).
//
// # Listing
//
// List summarises the files of a folder (header, name, first user message,
// message count, times) and says in one line what is wrong with a broken
// one; an Index (MemIndex, FileIndex, or one backed by a database) keyed by
// path, size and modification time spares rereading unchanged files.
// Listing reads each file as a stream, line by line, in memory that does
// not grow with the file; Open holds the file, so it refuses one over
// Options.MaxFileBytes or Options.MaxEntries (ErrTooLarge), which a listing
// still shows, Broken, with the reason.
package pisession
