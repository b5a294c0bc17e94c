//go:build unix

package instructions

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runAsNobody re-runs one test of this binary as uid/gid 65534 so that
// permission checks apply, copying the binary where that user can run it.
func runAsNobody(t *testing.T, name string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find test binary:", err)
	}
	dir, err := os.MkdirTemp("", "instructions-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "instructions.test")
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(dst, src)
	src.Close()
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^"+name+"$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "INSTRUCTIONS_TEST_CHILD=1", "TMPDIR="+dir, "GOCOVERDIR=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "--- FAIL") {
			t.Fatalf("as nobody:\n%s", out)
		}
		t.Skipf("cannot run as nobody (%v):\n%s", err, out)
	}
	if strings.Contains(string(out), "--- SKIP") {
		t.Skipf("skipped as nobody:\n%s", out)
	}
	t.Logf("as nobody:\n%s", out)
}
