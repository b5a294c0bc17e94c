package main

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseBackground(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		reply    string
		dark, ok bool
	}{
		{"rgb:0000/0000/0000", true, true},
		{"rgb:ffff/ffff/ffff", false, true},
		{"rgb:1c1c/1c1c/1c1c", true, true},
		{"rgb:fdf6/f6e3/e3e3", false, true}, // solarized light
		{"rgb:ff/ff/ff", false, true},
		{"rgb:f/f/f", false, true},
		{"rgb:00/2b/36", true, true},
		{"rgba:ffff/ffff/ffff/ffff", false, true},
		{"rgb:8000/8000/8000", false, true}, // mid grey counts as light
		{"rgb:7fff/7fff/7fff", true, true},
		{"", false, false},
		{"?", false, false},
		{"rgb:ffff/ffff", false, false},
		{"rgb:ffff/ffff/ffff/ffff", false, false},
		{"rgb:fffff/0/0", false, false},
		{"rgb:zz/00/00", false, false},
		{"rgb://", false, false},
		{"#ffffff", false, false},
	} {
		dark, ok := parseBackground([]byte(c.reply))
		if dark != c.dark || ok != c.ok {
			t.Errorf("parseBackground(%q) = %v, %v; want %v, %v", c.reply, dark, ok, c.dark, c.ok)
		}
	}
}

func TestScanReplies(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		osc  string
		done bool
	}{
		{"\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c", "rgb:ffff/ffff/ffff", true},
		{"\x1b]11;rgb:0/0/0\x07\x1b[?1;2c", "rgb:0/0/0", true},
		{"\x1b[?6c", "", true},
		{"typed keys\x1b]11;rgb:1/1/1\x07more\x1b[?c", "rgb:1/1/1", true},
		{"\x1b]11;rgb:ffff/ffff/ffff\x1b\\", "rgb:ffff/ffff/ffff", false},
		{"\x1b]11;rgb:ffff/ff", "", false},
		{"\x1b]10;rgb:ffff/ffff/ffff\x07\x1b[?6c", "", true}, // the foreground, not ours
		{"\x1b]11;rgb:1/1/1\x1b[?6c", "", true},              // broken off
		{"\x1b[?6", "", false},
		{"\x1b[12;1R", "", false}, // a cursor report is no sentinel
		{"\x1b", "", false},
		{"", "", false},
	} {
		osc, done := scanReplies([]byte(c.in))
		if string(osc) != c.osc || done != c.done {
			t.Errorf("scanReplies(%q) = %q, %v; want %q, %v", c.in, osc, done, c.osc, c.done)
		}
	}
}

func TestFgbgDark(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v        string
		dark, ok bool
	}{
		{"15;0", true, true},
		{"0;15", false, true},
		{"default;default;0", true, true},
		{"0;7", false, true},
		{"15;8", true, true},
		{"", false, false},
		{"15", false, false},
		{"15;default", false, false},
		{"0;16", false, false},
	} {
		dark, ok := fgbgDark(c.v)
		if dark != c.dark || ok != c.ok {
			t.Errorf("fgbgDark(%q) = %v, %v; want %v, %v", c.v, dark, ok, c.dark, c.ok)
		}
	}
}

// What a terminal sends back is read by scanReplies and parseBackground:
// any bytes are taken without a panic, and a reply found is part of the
// input.
func FuzzScanReplies(f *testing.F) {
	f.Add([]byte("\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c"))
	f.Add([]byte("\x1b]11;rgba:1/2/3/4\x07\x1b[?c"))
	f.Add([]byte("\x1b]11;\x1b]11;\x1b[?\x1b[?1c"))
	f.Add([]byte("\x1b[?6c"))
	f.Fuzz(func(t *testing.T, in []byte) {
		osc, _ := scanReplies(in)
		if osc != nil && !strings.Contains(string(in), "11;"+string(osc)) {
			t.Fatalf("scanReplies(%q) found %q, which is not in it", in, osc)
		}
		parseBackground(osc)
		parseBackground(in)
	})
}

// Every well-formed colour is read, and its darkness is its lightness.
func FuzzParseBackground(f *testing.F) {
	f.Add(uint16(0), uint16(0), uint16(0))
	f.Add(uint16(0xffff), uint16(0x8000), uint16(0))
	f.Fuzz(func(t *testing.T, r, g, b uint16) {
		dark, ok := parseBackground(fmt.Appendf(nil, "rgb:%04x/%04x/%04x", r, g, b))
		lo, hi := min(r, g, b), max(r, g, b)
		if want := int(lo)+int(hi) < 0xffff; !ok || dark != want {
			t.Fatalf("rgb %04x/%04x/%04x: dark %v ok %v, want dark %v", r, g, b, dark, ok, want)
		}
	})
}
