package instructions

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// DefaultBudgetBytes is the shared budget of a whole chain: 32 KiB of UTF-8
// content, global sources included. Headings and notes are not counted.
const DefaultBudgetBytes = 32768

// readSlack is how many bytes beyond the budget are read from one file. The
// slack absorbs what normalisation removes (a BOM, CRs, leading blanks) so a
// file that alone could fill the budget still can, while a file of any size
// costs at most budget+slack bytes of I/O.
const readSlack = 4096

// readGrowth bounds the re-reads of a file whose normalised text came out
// shorter than the budget (CRLF line ends, leading blank lines): at most
// readGrowth × (budget + slack) raw bytes are read from one file.
const readGrowth = 4

// normalize turns raw file bytes into the text the model receives: it drops
// a UTF-8 byte order mark, turns CRLF into LF, replaces each maximal invalid
// UTF-8 subsequence with U+FFFD (as pi's decoder does, so sizes agree) and trims
// surrounding white space. When the read was
// partial (complete is false) a code point split by the read limit is
// dropped rather than replaced, and only leading space is trimmed: the tail
// will be cut anyway. The input slice may be modified in place.
func normalize(b []byte, complete bool) []byte {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if !complete {
		b = dropPartialRune(b)
	}
	if i := bytes.IndexByte(b, '\r'); i >= 0 {
		w := i
		for r := i; r < len(b); r++ {
			if b[r] == '\r' && r+1 < len(b) && b[r+1] == '\n' {
				continue
			}
			b[w] = b[r]
			w++
		}
		b = b[:w]
	}
	if !utf8.Valid(b) {
		b = replaceInvalid(b)
	}
	if complete {
		return bytes.TrimSpace(b)
	}
	return bytes.TrimLeftFunc(b, unicode.IsSpace)
}

// replaceInvalid replaces each maximal invalid subsequence with one
// U+FFFD, the WHATWG rule that Node's decoder (and so pi) follows: a lead
// byte and the continuation bytes that could still have completed it count
// as one error ("\xe2\x82b" is one U+FFFD then "b"), while each byte that
// could never start or continue a sequence is an error of its own
// ("\xff\xfe" is two). Byte counts and fair shares then agree with pi's.
func replaceInvalid(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/4)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r != utf8.RuneError || n > 1 {
			out = append(out, b[:n]...)
			b = b[n:]
			continue
		}
		out = append(out, "\uFFFD"...)
		b = b[invalidPrefix(b):]
	}
	return out
}

// invalidPrefix returns the length of the maximal subpart at the start of
// b, which does not begin a valid sequence: the lead byte plus the
// continuation bytes that fit it, or 1 for a byte that cannot lead.
func invalidPrefix(b []byte) int {
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1 // a continuation byte, C0, C1 or F5..FF
	}
	i := 1
	for ; i <= need && i < len(b); i++ {
		if b[i] < lo || b[i] > hi {
			break
		}
		lo, hi = 0x80, 0xBF // only the second byte has a narrower range
	}
	return i
}

// dropPartialRune removes an incomplete UTF-8 sequence at the end of b, left
// there because a bounded read stopped in the middle of a code point.
func dropPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// cutText returns the longest prefix of s that fits in limit bytes, ends on
// a code-point boundary and, when a line ends in the last quarter of the
// allowance, ends at that line so the model does not see half a sentence.
// Trailing white space of the prefix is dropped. s is returned unchanged
// when it fits.
func cutText(s string, limit int) string {
	if limit >= len(s) {
		return s
	}
	if limit <= 0 {
		return ""
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if j := lastNewline(s[:n]); j >= 0 && j >= n-n/4 {
		n = j
	}
	for n > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:n])
		if !unicode.IsSpace(r) {
			break
		}
		n -= size
	}
	return s[:n]
}

func lastNewline(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return i
		}
	}
	return -1
}

// fairShares splits budget among demands max-min fairly (water-filling):
// every demand not larger than its fair share is met in full, and the
// remaining budget is split equally among the rest, the leftover bytes of
// the integer division going to the earliest of them. The shares never sum
// to more than budget.
func fairShares(demands []int, budget int) []int {
	n := len(demands)
	shares := make([]int, n)
	if n == 0 {
		return shares
	}
	// Selection by repeated minimum keeps this allocation-free beyond the
	// result; chains hold a handful of sources.
	done := make([]bool, n)
	remaining, left := budget, n
	for left > 0 {
		fair := remaining / left
		min := -1
		for i, d := range demands {
			if !done[i] && (min < 0 || d < demands[min]) {
				min = i
			}
		}
		if demands[min] > fair {
			extra := remaining - fair*left
			for i := range demands {
				if done[i] {
					continue
				}
				shares[i] = fair
				if extra > 0 {
					shares[i]++
					extra--
				}
			}
			return shares
		}
		shares[min] = demands[min]
		done[min] = true
		remaining -= demands[min]
		left--
	}
	return shares
}
