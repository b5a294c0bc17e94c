package pisession

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// EncodeCwd turns an absolute working directory into the name of its
// session folder exactly as pi does: one leading slash or backslash is
// dropped, every other '/', '\' and ':' becomes '-', and the result is
// wrapped in "--". "/home/u/src/api" → "--home-u-src-api--".
func EncodeCwd(cwd string) string {
	if strings.HasPrefix(cwd, "/") || strings.HasPrefix(cwd, `\`) {
		cwd = cwd[1:]
	}
	return "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(cwd) + "--"
}

// SessionsDir returns the folder pi keeps a project's sessions in:
// <agentDir>/sessions/<EncodeCwd(cwd)>. An explicit session folder (pi's
// --session-dir, $PI_CODING_AGENT_SESSION_DIR or the sessionDir setting)
// replaces this whole path: files go straight into that folder.
func SessionsDir(agentDir, cwd string) string {
	return filepath.Join(agentDir, "sessions", EncodeCwd(cwd))
}

// FileName is the name pi gives a session file: the header's timestamp with
// ':' and '.' turned into '-', an underscore, the session id, ".jsonl".
func FileName(headerTimestamp, sessionID string) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(headerTimestamp) + "_" + sessionID + ".jsonl"
}

// timestampLayout is JavaScript's Date.toISOString: UTC, milliseconds, Z.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// FormatTimestamp writes t as pi writes entry timestamps.
func FormatTimestamp(t time.Time) string { return t.UTC().Format(timestampLayout) }

// ParseTimestamp reads an entry or header timestamp. It accepts any RFC 3339
// time (pi writes only the millisecond Z form, but hand-edited files vary).
func ParseTimestamp(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q is not an ISO time", s)
	}
	return t, nil
}

// newUUIDv7 returns an RFC 9562 version 7 UUID: 48 bits of Unix
// milliseconds, then random bits, so ids sort by creation time as pi's do.
func newUUIDv7(now time.Time, r io.Reader) (string, error) {
	var u [16]byte
	if _, err := io.ReadFull(r, u[6:]); err != nil {
		return "", fmt.Errorf("make a session id: %w", err)
	}
	ms := uint64(now.UnixMilli())
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], ms)
	copy(u[0:6], ts[2:8])
	u[6] = 0x70 | u[6]&0x0f // version 7
	u[8] = 0x80 | u[8]&0x3f // variant 10
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], u[10:16])
	return string(b[:]), nil
}

// NewSessionID returns a fresh UUIDv7 session id from crypto/rand.
func NewSessionID() (string, error) { return newUUIDv7(time.Now(), rand.Reader) }

// newEntryID returns 8 lowercase hex characters not yet in taken. pi makes
// its entry ids the same way (the first 8 hex digits of a random UUID).
func newEntryID(r io.Reader, taken func(string) bool) (string, error) {
	var b [4]byte
	var s [8]byte
	for range 64 {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", fmt.Errorf("make an entry id: %w", err)
		}
		hex.Encode(s[:], b[:])
		if id := string(s[:]); !taken(id) {
			return id, nil
		}
	}
	return "", fmt.Errorf("make an entry id: 64 random ids in a row were taken; the random source is broken")
}
