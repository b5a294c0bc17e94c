package instructions

import (
	"crypto/sha256"
	"encoding/hex"
)

// DeliveryFileBytes caps one file delivered into a tool result
// (pi-agent-guidance: 16 KiB per file).
const DeliveryFileBytes = 16 * 1024

// Cut returns the longest prefix of s within limit bytes that ends on a
// code-point boundary, preferably at a line end: the rule the chain budget
// uses, for callers that cut content themselves (delivery into tool
// results).
func Cut(s string, limit int) string { return cutText(s, limit) }

// Digest identifies a source's content: equal digests mean the model saw
// the same text. It is stable across processes, so a session resumed by a
// new process compares with what earlier ones recorded.
func Digest(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:12])
}
