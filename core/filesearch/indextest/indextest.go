// Package indextest writes git index files for tests and benchmarks: a
// real `git add` of 100,000 files takes longer than a benchmark should.
package indextest

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Checkout makes dir a git checkout of n files (only its index and what
// git needs to take the folder for a repository: the files themselves are
// not written, nor any object), one of them packages/api/handler.go.
func Checkout(dir string, n int) error {
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(dir, ".git", d), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		return err
	}
	ps := make([]string, 0, n)
	for i := range n {
		ps = append(ps, fmt.Sprintf("packages/mod%03d/internal/pkg%02d/file_%06d.go", i/1000, i/100%10, i))
	}
	ps[n/2] = "packages/api/handler.go"
	slices.Sort(ps)
	return os.WriteFile(filepath.Join(dir, ".git", "index"), Encode(2, ps), 0o644)
}

// Encode writes a git index of the given version (2 or 4) listing
// paths as regular files, in git's documented format.
func Encode(version uint32, paths []string) []byte {
	var b []byte
	b = append(b, "DIRC"...)
	b = binary.BigEndian.AppendUint32(b, version)
	b = binary.BigEndian.AppendUint32(b, uint32(len(paths)))
	prev := ""
	for _, p := range paths {
		start := len(b)
		b = append(b, make([]byte, 24)...)             // ctime, mtime, dev, ino
		b = binary.BigEndian.AppendUint32(b, 0o100644) // mode
		b = append(b, make([]byte, 12)...)             // uid, gid, size
		b = append(b, make([]byte, 20)...)             // object name
		b = binary.BigEndian.AppendUint16(b, uint16(min(len(p), 0xFFF)))
		if version == 4 {
			common := 0
			for common < len(p) && common < len(prev) && p[common] == prev[common] {
				common++
			}
			b = appendVarint(b, uint64(len(prev)-common))
			b = append(b, p[common:]...)
			b = append(b, 0)
		} else {
			b = append(b, p...)
			n := (len(b) - start + 8) &^ 7
			b = append(b, make([]byte, start+n-len(b))...)
		}
		prev = p
	}
	sum := sha1.Sum(b)
	return append(b, sum[:]...)
}

func appendVarint(b []byte, v uint64) []byte {
	var tmp [16]byte
	i := len(tmp) - 1
	tmp[i] = byte(v & 0x7f)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		i--
		tmp[i] = 0x80 | byte(v&0x7f)
	}
	return append(b, tmp[i:]...)
}
