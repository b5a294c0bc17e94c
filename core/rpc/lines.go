package rpc

import (
	"encoding/json"
	"io"
	"sync"
)

// Lines writes one JSON value per line, from any goroutine.
type Lines struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewLines returns a Lines writing to w.
func NewLines(w io.Writer) *Lines {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &Lines{enc: enc}
}

// Write writes v as one line of JSON (HTML characters kept as they are).
func (j *Lines) Write(v any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.enc.Encode(v)
}
