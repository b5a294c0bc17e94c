package piengine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pi")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func find(path string) (Pi, error) {
	l := &Locator{Getenv: func(k string) string {
		if k == EnvPi {
			return path
		}
		return ""
	}}
	return l.Find(context.Background())
}

// Each way of not having a usable pi is one line naming the problem, and
// an unsupported pi names its version.
func TestLocateErrors(t *testing.T) {
	noExec := filepath.Join(t.TempDir(), "pi")
	os.WriteFile(noExec, []byte("#!/bin/sh\necho 1.6.0\n"), 0o644)
	for _, c := range []struct {
		name, path, want string
	}{
		{"old", script(t, "echo 0.85.1"), "pi 0.85.1 at %s speaks an RPC pi-tui does not support; pi-tui needs pi 1.6 or later 1.x"},
		{"too new", script(t, "echo 2.0.0"), "pi 2.0.0 at %s speaks an RPC"},
		{"1.5", script(t, "echo 1.5.9"), "pi 1.5.9 at %s speaks an RPC"},
		{"missing", filepath.Join(t.TempDir(), "nope"), "no such file"},
		{"not executable", noExec, "not executable"},
		{"directory", t.TempDir(), "a directory"},
		{"fails", script(t, "echo starting >&2; echo 'Error: node is too old' >&2; exit 1"), "--version failed (exit status 1): Error: node is too old"},
		{"garbage", script(t, "printf 'hello \\033[31mworld\\n'"), `does not look like pi: its --version printed "hello \x1b[31mworld", not a version`},
		{"another program", script(t, "echo 'true (GNU coreutils) 9.1'; echo 'Copyright'"), `does not look like pi: its --version printed "true (GNU coreutils) 9.1" …, not a version`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := find(c.path)
			want := c.want
			if strings.Contains(want, "%s") {
				want = strings.ReplaceAll(want, "%s", c.path)
			}
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v\nwant %s", err, want)
			}
		})
	}
	l := &Locator{Getenv: func(string) string { return "" }}
	if _, err := l.Find(context.Background()); err == nil || !strings.Contains(err.Error(), "pi not found") {
		t.Errorf("no pi: %v", err)
	}
}

// pi on PATH is found; a relative PATH entry is never used.
func TestLocateOnPath(t *testing.T) {
	p := script(t, "echo 1.6.0")
	l := &Locator{Getenv: func(k string) string {
		if k == "PATH" {
			return "relative/bin:" + filepath.Dir(p)
		}
		return ""
	}}
	pi, err := l.Find(context.Background())
	if err != nil || pi.Path != p || pi.Version != "1.6.0" {
		t.Errorf("%+v %v", pi, err)
	}
}

// The version is asked once per file, and again once the file changed.
func TestLocateAsksOncePerStamp(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	p := script(t, "echo x >> "+count+"; echo 1.6.3")
	l := &Locator{Getenv: func(k string) string {
		if k == EnvPi {
			return p
		}
		return ""
	}}
	for range 3 {
		if pi, err := l.Find(context.Background()); err != nil || pi.Version != "1.6.3" {
			t.Fatalf("%+v %v", pi, err)
		}
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho x >> "+count+"; echo 1.7.0-beta.1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if pi, err := l.Find(context.Background()); err != nil || pi.Version != "1.7.0-beta.1" {
		t.Fatalf("%+v %v", pi, err)
	}
	b, _ := os.ReadFile(count)
	if n := strings.Count(string(b), "x"); n != 2 {
		t.Errorf("--version ran %d times", n)
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"1.6.0", "1.6.0-beta.1", "0.85.1", "2.0.0", "1..0", "+1.6.0", "1.6.0+x", "01.6.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parseVersion(s)
		if ok && Supported(s, "/pi") == nil && (v[0] != 1 || v[1] < 6) {
			t.Errorf("%q supported as %v", s, v)
		}
	})
}
