//go:build unix

package instructions

import (
	"bufio"
	"encoding/hex"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
)

// FuzzReplaceInvalid checks replaceInvalid against the WHATWG decoder as
// the standard writes it.
func FuzzReplaceInvalid(f *testing.F) {
	for _, s := range []string{"a\xe2\x82b \xff\xfe c", "\xf0\x9f\x98", "\xed\xa0\x80", "\xe0\x80\xaf", "\xf4\x90\x80\x80", "ok"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := refValidUTF8(string(b))
		if got := string(replaceInvalid(append([]byte(nil), b...))); got != want {
			t.Fatalf("replaceInvalid(%q) = %q, want %q", b, got, want)
		}
	})
}

// TestReplaceInvalidMatchesNode compares with Node's own decoder, which pi
// reads files with, on random byte strings rich in invalid sequences.
func TestReplaceInvalidMatchesNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the WHATWG reference decoder still checks replaceInvalid")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs []string
	var in strings.Builder
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			switch rng.IntN(3) {
			case 0:
				b[i] = byte(0x80 + rng.IntN(0x80))
			case 1:
				b[i] = []byte{0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0x80, 0x9f, 0xa0, 0xbf}[rng.IntN(13)]
			default:
				b[i] = byte('a' + rng.IntN(3))
			}
		}
		inputs = append(inputs, string(b))
		in.WriteString(hex.EncodeToString(b) + "\n")
	}
	cmd := exec.Command(node, "-e", `
const lines = require('fs').readFileSync(0, 'utf8').split('\n').slice(0, -1);
const d = new TextDecoder('utf-8');
process.stdout.write(lines.map(h => Buffer.from(d.decode(Buffer.from(h, 'hex')), 'utf8').toString('hex')).join('\n') + '\n');`)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for i := 0; sc.Scan(); i++ {
		want, _ := hex.DecodeString(sc.Text())
		if got := replaceInvalid([]byte(inputs[i])); string(got) != string(want) {
			t.Fatalf("replaceInvalid(%q) = %q; node reads %q", inputs[i], got, want)
		}
	}
}
