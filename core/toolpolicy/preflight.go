package toolpolicy

import (
	"context"
	"time"
)

// DefaultPreflightTimeout bounds one instruction preflight.
const DefaultPreflightTimeout = 2 * time.Second

// Claim is the host's answer to a preflight: the instruction chain that
// applies to a target. An engine only carries it; it cannot read the files.
type Claim struct {
	Labels []string `json:"labels"`
	// Fallback is set when the path-specific chain could not be resolved
	// (timeout, error) and the base chain applies.
	Fallback bool   `json:"fallback,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Deliver is set when nested instructions reach the model with tool
	// results (a trusted project, subdirectoryContext on).
	Deliver bool `json:"deliver,omitempty"`
	// Sources are the chain's files that are not in the system prompt,
	// outer first, with their content (cut to 16 KiB, with a note).
	Sources []ContextFile `json:"-"`
	// Base is the root chain, the one in the system prompt: the chain in
	// effect before any file tool.
	Base []string `json:"base,omitempty"`
	// Untrusted is set for an untrusted project; Withheld names the nested
	// files that are not loaded because of it.
	Untrusted bool     `json:"untrusted,omitempty"`
	Withheld  []string `json:"withheld,omitempty"`
}

// ContextFile is an instruction file as the host hands it over.
type ContextFile struct {
	Label     string
	Path      string // canonical
	Digest    string // identifies the content; equal digests, same text
	Content   string // what the model receives (cut, with a note, when Truncated)
	Shown     int    // bytes of the file's text in Content, the note not counted
	Bytes     int    // size of the whole normalised content
	Truncated bool
}

// Preflighter is the host side of the preflight proxy. The agent names
// only a target; the host resolves it against the root it bound to the
// session and ignores anything else.
type Preflighter interface {
	// Preflight returns the chain of target's directory.
	Preflight(ctx context.Context, target string) (Claim, error)
	// ContextFile reports whether path (canonical) is an instruction file
	// of the chain of its own directory, with its digest, so a full read or
	// a write of it can count as delivering it.
	ContextFile(ctx context.Context, path string) (ContextFile, bool, error)
}
