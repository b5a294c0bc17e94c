package filesearch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// The git index ("DIRC") as documented in git's
// Documentation/gitformat-index.txt: a 12-byte header (signature, version,
// entry count), the entries sorted by path, extensions, and a trailing
// checksum. Versions 2 and 3 pad each entry to a multiple of 8 bytes;
// version 3 adds a second flags word when the extended bit is set;
// version 4 drops the padding and stores each path as "strip N bytes from
// the previous path, then append this NUL-terminated suffix".
//
// Extensions follow the entries, each a 4-byte signature and a 4-byte
// length. One whose signature starts with a capital letter is an optional
// cache (TREE, REUC, UNTR, ...) that changes no entry and is skipped;
// any other changes what the entries mean and a reader that does not
// know it must not trust them. Two are known here: "sdir" (a sparse
// index: some entries are folders outside the sparse checkout, left out
// like every skip-worktree entry) and "link" (core.splitIndex: the
// entries are only the latest changes over a shared index file named by
// the extension). Neither a split index nor an unknown extension is
// merged: parseIndex reports them, and the caller lists the folder plus
// the tracked paths it could read (see fromIndex).
//
// This reader is the fallback for when git cannot be run: with git, the
// lists come from git ls-files, which knows every format.
//
// The index of a repository that was cloned is data pi-tui does not
// control: every count and length is checked against the bytes actually
// there before it is used, so a truncated or hostile file gives an error
// (and the caller walks the folder instead), never a panic or a huge
// allocation.

const (
	entryFixed   = 40 // ctime, mtime, dev, ino, mode, uid, gid, size
	flagExtended = 0x4000
	flagStage    = 0x3000
	extSkipWT    = 0x4000 // skip-worktree: the file is not in the work tree
	modeTypeMask = 0o170000
	modeRegular  = 0o100000
	modeSymlink  = 0o120000
)

// indexExtras is what an index holds besides its entries that changes
// how far they can be trusted.
type indexExtras struct {
	shared  string   // core.splitIndex: the shared index's object name, in hex
	unknown []string // required extensions this reader does not know
}

// parseIndex returns the paths of the files an index lists that are in
// the work tree (regular files and symbolic links; not submodules, sparse
// directories or skip-worktree entries), in index order, each path once,
// and the extensions that qualify them. hashSize is 20 for SHA-1
// repositories and 32 for SHA-256 ones.
func parseIndex(data []byte, hashSize int) (*names, indexExtras, error) {
	n, off, err := parseEntries(data, hashSize)
	if err != nil {
		return nil, indexExtras{}, err
	}
	ext, err := parseExtensions(data[off:len(data)-hashSize], hashSize)
	return n, ext, err
}

// parseExtensions reads the extensions between the last entry and the
// checksum.
func parseExtensions(b []byte, hashSize int) (indexExtras, error) {
	var out indexExtras
	for len(b) > 0 {
		if len(b) < 8 {
			return out, errors.New("the git index has a cut-off extension header")
		}
		sig, size := b[:4], uint64(binary.BigEndian.Uint32(b[4:]))
		if size > uint64(len(b)-8) {
			return out, fmt.Errorf("the git index's %q extension claims %d bytes, more than are there", trim(sig), size)
		}
		body := b[8 : 8+size]
		b = b[8+size:]
		switch {
		case 'A' <= sig[0] && sig[0] <= 'Z':
			// An optional cache: the entries mean the same without it.
		case string(sig) == "sdir":
			// Sparse directories are entries with skip-worktree set.
		case string(sig) == "link":
			if len(body) < hashSize {
				return out, errors.New("the git index's split-index extension is cut off")
			}
			out.shared = fmt.Sprintf("%x", body[:hashSize])
		default:
			out.unknown = append(out.unknown, fmt.Sprintf("%q", sig))
		}
	}
	return out, nil
}

// parseEntries reads the header and the entries, and returns where the
// extensions start.
func parseEntries(data []byte, hashSize int) (*names, int, error) {
	if len(data) < 12+hashSize {
		return nil, 0, fmt.Errorf("the git index is %d bytes, too short for a header", len(data))
	}
	if string(data[:4]) != "DIRC" {
		return nil, 0, errors.New("the git index does not start with DIRC")
	}
	ver := binary.BigEndian.Uint32(data[4:])
	if ver < 2 || ver > 4 {
		return nil, 0, fmt.Errorf("git index version %d is not supported (2, 3 and 4 are)", ver)
	}
	count := uint64(binary.BigEndian.Uint32(data[8:]))
	end := len(data) - hashSize // the checksum follows the entries and extensions
	fixed := entryFixed + hashSize + 2
	minEntry := fixed + 2 // a one-byte name and its NUL (v4: strip count and NUL)
	if count > uint64(end-12)/uint64(minEntry) {
		return nil, 0, fmt.Errorf("the git index claims %d entries, more than its %d bytes can hold", count, len(data))
	}
	out := &names{buf: make([]byte, 0, min(end-12, 64<<20)), ends: make([]int, 0, count)}
	off := 12
	var prev []byte // v4: the previous entry's full path
	last := -1      // start of the last path kept, to drop conflict stages
	for i := uint64(0); i < count; i++ {
		start := off
		if off+fixed > end {
			return nil, 0, fmt.Errorf("the git index is cut off in entry %d of %d", i+1, count)
		}
		mode := binary.BigEndian.Uint32(data[off+24:])
		flags := binary.BigEndian.Uint16(data[off+entryFixed+hashSize:])
		off += fixed
		var ext uint16
		if flags&flagExtended != 0 {
			if ver < 3 {
				return nil, 0, fmt.Errorf("entry %d of the version %d git index has extended flags", i+1, ver)
			}
			if off+2 > end {
				return nil, 0, fmt.Errorf("the git index is cut off in entry %d of %d", i+1, count)
			}
			ext = binary.BigEndian.Uint16(data[off:])
			off += 2
		}
		var name []byte
		if ver == 4 {
			strip, n := varint(data[off:end])
			if n <= 0 {
				return nil, 0, fmt.Errorf("entry %d of the git index has a bad path prefix length", i+1)
			}
			off += n
			if strip > uint64(len(prev)) {
				return nil, 0, fmt.Errorf("entry %d of the git index strips %d bytes from a %d-byte path", i+1, strip, len(prev))
			}
			nul := bytes.IndexByte(data[off:end], 0)
			if nul < 0 {
				return nil, 0, fmt.Errorf("the git index is cut off in entry %d of %d", i+1, count)
			}
			prev = append(prev[:len(prev)-int(strip)], data[off:off+nul]...)
			name = prev
			off += nul + 1
		} else {
			nul := bytes.IndexByte(data[off:end], 0)
			if nul < 0 {
				return nil, 0, fmt.Errorf("the git index is cut off in entry %d of %d", i+1, count)
			}
			if l := int(flags & 0xFFF); l < 0xFFF && l != nul {
				return nil, 0, fmt.Errorf("entry %d of the git index says its path has %d bytes but it has %d", i+1, l, nul)
			}
			name = data[off : off+nul]
			off = start + (off-start+nul+8)&^7 // NUL padding to a multiple of 8
			if off > end {
				return nil, 0, fmt.Errorf("the git index is cut off in entry %d of %d", i+1, count)
			}
		}
		if i > 0 && flags&flagStage != 0 && last >= 0 && string(out.buf[last:]) == string(name) {
			continue // another stage of a conflicted file already kept
		}
		if t := mode & modeTypeMask; (t != modeRegular && t != modeSymlink) || ext&extSkipWT != 0 || !cleanPath(name) {
			continue
		}
		last = len(out.buf)
		out.buf = append(out.buf, name...)
		out.ends = append(out.ends, len(out.buf))
	}
	return out, off, nil
}

// varint decodes git's offset encoding (each continuation adds one before
// shifting, so every value has exactly one encoding). It returns the
// bytes used, or 0 for a truncated or overlong number.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i, c := range b {
		if i == 0 {
			v = uint64(c & 0x7f)
		} else {
			if v > 1<<50 {
				return 0, 0
			}
			v = (v+1)<<7 | uint64(c&0x7f)
		}
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// cleanPath reports whether an index path is one pi-tui offers: relative,
// slash-separated, without empty, "." or ".." parts, without a ".git" part
// (git refuses those too), and without control characters (a name that
// cannot be shown or typed back). Paths are only ever opened through an
// os.Root on the project, so this is about what is offered, not safety.
func cleanPath(p []byte) bool {
	if len(p) == 0 || p[0] == '/' || p[len(p)-1] == '/' {
		return false
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	for start := 0; start <= len(p); {
		end := bytes.IndexByte(p[start:], '/')
		if end < 0 {
			end = len(p)
		} else {
			end += start
		}
		part := p[start:end]
		if len(part) == 0 || string(part) == "." || string(part) == ".." || (len(part) == 4 && bytes.EqualFold(part, []byte(".git"))) {
			return false
		}
		start = end + 1
	}
	return true
}

// names is a list of paths stored in one buffer: a 100,000-file index is
// one allocation, not 100,000.
type names struct {
	buf  []byte
	ends []int

	first   func([]string) // called once with the paths so far when there are firstAt
	firstAt int
}

// strings returns the paths, slices of one string.
func (n *names) strings(prefix string) []string {
	all := string(n.buf)
	out := make([]string, 0, len(n.ends))
	start := 0
	for _, e := range n.ends {
		p := all[start:e]
		start = e
		if prefix != "" {
			if !strings.HasPrefix(p, prefix) {
				continue
			}
			p = p[len(prefix):]
		}
		out = append(out, p)
	}
	return out
}

// add appends prefix+p unless that would pass lim's number of files or
// bytes.
func (n *names) add(prefix string, p []byte, lim Limits) bool {
	if len(n.ends) >= lim.MaxFiles || int64(len(n.buf)+len(prefix)+len(p)) > lim.MaxBytes {
		return false
	}
	n.buf = append(append(n.buf, prefix...), p...)
	n.ends = append(n.ends, len(n.buf))
	if n.first != nil && len(n.ends) == n.firstAt {
		n.first(n.strings(""))
		n.first = nil
	}
	return true
}
