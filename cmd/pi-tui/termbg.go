package main

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/paths"
)

// backgroundBound is how long the terminal UI waits, once, before its
// first frame, for the terminal to say its background colour. Every
// terminal emulator answers the sentinel sent after the question at
// once, so the bound is only reached where nothing answers at all (a bare
// pty, a pipe dressed as a terminal); it is long enough for a reply over
// a slow SSH link, which would otherwise arrive as typed keys.
const backgroundBound = time.Second

// Sent to the terminal: OSC 11 asks for the background colour; DA1
// (primary device attributes) is the sentinel that every terminal
// answers, after the OSC reply if it gives one.
const backgroundQuery = "\x1b]11;?\x1b\\\x1b[c"

// darkBackground tells whether the terminal on in and out has a dark
// background, for the UI's colours. It asks at most once and waits at
// most bound (or until ctx ends); without an answer it goes by COLORFGBG,
// and then assumes dark. Commands that print never call it.
func darkBackground(ctx context.Context, in, out *os.File, env paths.Env, bound time.Duration) bool {
	if reply := askBackground(ctx, in, out, bound); reply != nil {
		if dark, ok := parseBackground(reply); ok {
			return dark
		}
	}
	if dark, ok := fgbgDark(env("COLORFGBG")); ok {
		return dark
	}
	return true
}

// scanReplies looks through what the terminal sent for the answers to
// backgroundQuery: the OSC 11 reply's payload ("rgb:…", nil if there is
// none) and whether the DA1 reply, which comes last, has arrived.
func scanReplies(buf []byte) (osc []byte, done bool) {
	rest := buf
	for {
		i := bytes.IndexByte(rest, 0x1b)
		if i < 0 || i+1 >= len(rest) {
			return osc, false
		}
		rest = rest[i+1:]
		switch rest[0] {
		case ']':
			body, n, ok := oscBody(rest[1:])
			if !ok {
				return osc, false // not complete yet
			}
			if p, found := bytes.CutPrefix(body, []byte("11;")); found {
				osc = p
			}
			rest = rest[1+n:]
		case '[':
			if len(rest) > 1 && rest[1] == '?' {
				j := 2
				for j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || rest[j] == ';') {
					j++
				}
				if j == len(rest) {
					return osc, false // not complete yet
				}
				if rest[j] == 'c' {
					return osc, true
				}
			}
		}
	}
}

// oscBody returns an OSC sequence's text, up to its terminator (BEL or
// ESC \), and how many bytes the text and terminator take.
func oscBody(s []byte) (body []byte, n int, ok bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 0x07:
			return s[:i], i + 1, true
		case 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return s[:i], i + 2, true
			}
			if i+1 < len(s) {
				return nil, i, true // broken off by another sequence
			}
		}
	}
	return nil, 0, false
}

// parseBackground reads an OSC 11 reply's colour, "rgb:R/G/B" or
// "rgba:R/G/B/A" with one to four hex digits a component, and says
// whether it is dark: its HSL lightness below one half.
func parseBackground(p []byte) (dark, ok bool) {
	s := string(p)
	var n int
	switch {
	case strings.HasPrefix(s, "rgb:"):
		s, n = s[len("rgb:"):], 3
	case strings.HasPrefix(s, "rgba:"):
		s, n = s[len("rgba:"):], 4
	default:
		return false, false
	}
	parts := strings.Split(s, "/")
	if len(parts) != n {
		return false, false
	}
	lo, hi := 1.0, 0.0
	for _, c := range parts[:3] {
		if len(c) < 1 || len(c) > 4 {
			return false, false
		}
		v, err := strconv.ParseUint(c, 16, 16)
		if err != nil {
			return false, false
		}
		f := float64(v) / float64(uint64(1)<<(4*len(c))-1)
		lo, hi = min(lo, f), max(hi, f)
	}
	return (lo+hi)/2 < 0.5, true
}

// fgbgDark reads COLORFGBG ("15;0", "default;default;0"), which rxvt and
// Konsole set: its last field is the background's ANSI colour number.
func fgbgDark(v string) (dark, ok bool) {
	if !strings.Contains(v, ";") {
		return false, false
	}
	bg, err := strconv.Atoi(v[strings.LastIndexByte(v, ';')+1:])
	if err != nil || bg < 0 || bg > 15 {
		return false, false
	}
	return bg != 7 && bg < 9, true
}
