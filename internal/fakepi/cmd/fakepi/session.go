package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// session appends pi's v3 entries to the --session file: the header at
// the first entry, then one line per entry under the current leaf.
type session struct {
	mu     sync.Mutex
	path   string
	id     string
	leaf   string
	ids    map[string]bool
	header bool
}

func newID(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func isoNow() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// openSession reads an existing file's header and entries (resuming on
// its last entry, as pi does) or prepares a new one.
func openSession(path string) *session {
	s := &session{path: path, id: newID(16), ids: map[string]bool{}}
	if path == "" {
		return s
	}
	fh, err := os.Open(path)
	if err != nil {
		return s
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<16), 64<<20)
	for sc.Scan() {
		var e struct{ Type, ID string }
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Type == "session" {
			s.header, s.id = true, e.ID
			continue
		}
		if e.ID != "" {
			s.ids[e.ID] = true
			s.leaf = e.ID
		}
	}
	return s
}

func (s *session) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[id]
}

func (s *session) setLeaf(id string) {
	s.mu.Lock()
	s.leaf = id
	s.mu.Unlock()
}

func (s *session) leafOrNil() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leaf == "" {
		return nil
	}
	return s.leaf
}

// append writes entry (its type and payload members) under the leaf and
// returns it as written.
func (s *session) append(entry obj) obj {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := newID(4)
	entry["id"] = id
	if s.leaf == "" {
		entry["parentId"] = nil
	} else {
		entry["parentId"] = s.leaf
	}
	entry["timestamp"] = isoNow()
	s.leaf, s.ids[id] = id, true
	if s.path == "" {
		return entry
	}
	fh, err := os.OpenFile(s.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakepi: session:", err)
		return entry
	}
	defer fh.Close()
	if !s.header {
		cwd, _ := os.Getwd()
		h, _ := json.Marshal(obj{"type": "session", "version": 3, "id": s.id, "timestamp": isoNow(), "cwd": cwd})
		fh.Write(append(h, '\n'))
		s.header = true
	}
	b, _ := json.Marshal(entry)
	fh.Write(append(b, '\n'))
	return entry
}
