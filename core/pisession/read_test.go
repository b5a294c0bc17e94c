package pisession

import (
	"bytes"
	"testing"
)

// The line reader splits any input the way bytes.Split on '\n' does: each
// line with its offset and length, a line over the limit reported as too
// long and never returned, the last one unterminated when the input does
// not end in '\n'. Tiny blocks make small inputs cross block boundaries,
// and with reuse every line is compared before the next is read.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint8(2), uint8(3), false)
	f.Add([]byte("{\"type\":\"session\"}\nxxxxxxxxxxxxxxxxxxxxxxxx\nyy\n"), uint8(4), uint8(8), true)
	f.Add([]byte("\n\n\n"), uint8(0), uint8(1), true)
	f.Add(bytes.Repeat([]byte("abcdefgh\n"), 40), uint8(7), uint8(2), true)
	f.Add([]byte("no newline at all, and long"), uint8(5), uint8(4), false)
	f.Fuzz(func(t *testing.T, data []byte, maxLine, block uint8, reuse bool) {
		lr := newLineReader(bytes.NewReader(data), 0, int64(len(data)), int(maxLine))
		lr.minBlock, lr.maxBlock = int64(block%32)+2, int64(block%32)*3+2
		lr.reuse = reuse
		want := bytes.Split(data, []byte{'\n'})
		if len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1] // the input ends in '\n' (or is empty)
		}
		var off int64
		var kept [][]byte // without reuse, lines stay valid
		for k, w := range want {
			l, ok, err := lr.next()
			if err != nil || !ok {
				t.Fatalf("line %d: ok %v, err %v; want %q", k+1, ok, err, w)
			}
			terminated := off+int64(len(w)) < int64(len(data))
			n := int64(len(w))
			if terminated {
				n++
			}
			if l.off != off || l.n != n || l.terminated != terminated {
				t.Fatalf("line %d: off %d n %d terminated %v; want %d %d %v", k+1, l.off, l.n, l.terminated, off, n, terminated)
			}
			if tooLong := len(w) > int(maxLine); l.tooLong != tooLong || !tooLong && !bytes.Equal(l.b, w) || tooLong && l.b != nil {
				t.Fatalf("line %d: %q (too long %v); want %q (limit %d)", k+1, l.b, l.tooLong, w, maxLine)
			}
			off += n
			if !reuse && !l.tooLong {
				kept = append(kept, l.b)
			}
		}
		if !reuse {
			var short [][]byte
			for _, w := range want {
				if len(w) <= int(maxLine) {
					short = append(short, w)
				}
			}
			for k := range kept {
				if !bytes.Equal(kept[k], short[k]) {
					t.Fatalf("kept line %d changed to %q, want %q", k, kept[k], short[k])
				}
			}
		}
		if l, ok, err := lr.next(); ok || err != nil {
			t.Fatalf("after the last line: %+v, %v", l, err)
		}
	})
}
