// Package sessionexport writes a pi session for sharing: a self-contained
// HTML page (no script, no fetch, every text escaped, tool calls folded in
// <details>), Markdown for pasting, or pi's own JSONL file as it is.
//
// It renders the branch shown (the path to the leaf) or every branch, and
// puts each tool call's file changes (the Review screen's diffs, which the
// caller supplies) under the call that made them.
package sessionexport
